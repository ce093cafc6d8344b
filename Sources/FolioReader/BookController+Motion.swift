import FolioLayout
import FolioMath

/// How the controller moves the shelf, opens and closes a book and turns its pages.
extension BookController {
    // MARK: Shelf

    var lastCover: Double { Double(max(library.count - 1, 0)) }

    func moveShelf(to target: Double) -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty, (0...lastCover).contains(target) else { return false }
        scrollMotion = Motion(from: scroll, to: target, start: time, duration: 0.35, curve: shelfCurve)
        return true
    }

    /// A step from rest eases in; one that joins a step under way keeps its speed.
    var shelfCurve: Motion.Curve { .timing(scrollMotion == nil ? .easeInOut : .easeOut) }

    func glideShelf(by d: Double) -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty, d != 0 else { return false }
        let target = clamp((scrollMotion?.to ?? scroll) + d, 0, lastCover)
        scrollMotion = Motion(from: scroll, to: target, start: time, duration: 0.25, curve: shelfCurve)
        return true
    }

    /// After a glide, come to rest on the nearest cover.
    func settleShelf() {
        let rest = clamp(scroll.rounded(), 0, lastCover)
        if shelfTracker == nil, abs(rest - scroll) > 1e-9 {
            scrollMotion = Motion(from: scroll, to: rest, start: time, duration: 0.2, curve: .timing(.easeOut))
        }
    }

    func beginShelfDrag() -> Bool {
        guard phase == .shelf, !library.isEmpty else { return false }
        scrollMotion = nil
        shelfTracker = VelocityTracker()
        shelfTracker?.add(scroll, at: time)
        return true
    }

    func moveShelfDrag(by d: Double) -> Bool {
        guard shelfTracker != nil else { return false }
        // Past either end the shelf follows at half speed, a quarter cover at most.
        let raw = scroll + d
        scroll = raw < 0 ? max(raw / 2, -0.25) : raw > lastCover ? min(lastCover + (raw - lastCover) / 2, lastCover + 0.25) : raw
        shelfTracker?.add(scroll, at: time)
        return true
    }

    func endShelfDrag() -> Bool {
        guard let tracker = shelfTracker else { return false }
        shelfTracker = nil
        let v = tracker.velocity(at: time)
        let rest = ShelfScroll.rest(from: scroll, velocity: v, count: library.count)
        scrollMotion = Motion(from: scroll, to: rest, start: time, duration: clamp(0.25 + 0.1 * abs(rest - scroll), 0.25, 0.8),
                              curve: .timing(.easeOut))
        return true
    }

    // MARK: Open and close

    func open() -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty else { return false }
        startOpening()
        openMotion = Motion(from: 0, to: 1, start: time, duration: settings.openSpring.duration, curve: .spring(settings.openSpring))
        return true
    }

    func open(book index: Int) -> Bool {
        guard phase == .shelf, shelfTracker == nil, library.indices.contains(index) else { return false }
        scrollMotion = nil
        scroll = Double(index)
        return open()
    }

    /// Only the centred cover opens: the shelf stops on it.
    func startOpening() {
        scrollMotion = nil
        scroll = clamp(scroll.rounded(), 0, lastCover)
        book = Int(scroll)
        spread = 0
        openProgress = 0
        phase = .opening
    }

    func close() -> Bool {
        guard phase == .reading || phase == .opening, scrubTracker == nil else { return false }
        phase = .closing
        openMotion = Motion(from: openProgress, to: 0, start: time, duration: settings.closeDuration * clamp(openProgress, 0.2, 1),
                            curve: .timing(.easeInOut))
        return true
    }

    func finishOpenClose(open: Bool) {
        openProgress = open ? 1 : 0
        if open {
            phase = .reading
            playWaiting()
        } else {
            // The next book opens fitted, not at this one's zoom and place.
            settings.fitSpread()
            book = nil
            // The open book's styles have nothing left to move; the shelf's may still.
            styleMotions = Self.moving(styleMotions.indices.map { $0 == StyleBlend.shelfAmount ? styleMotions[$0] : nil })
            // Turns that waited for the book to open go with it.
            waiting = []
            phase = .shelf
        }
    }

    func scrub(_ progress: (Double) -> Double) -> Bool {
        switch phase {
        case .shelf where scrubTracker == nil:
            guard shelfTracker == nil, !library.isEmpty else { return false }
            startOpening()
        case .reading where scrubTracker == nil:
            phase = .closing
        case .opening, .closing:
            guard scrubTracker != nil else { return false }
        default:
            return false
        }
        if scrubTracker == nil { scrubTracker = VelocityTracker() }
        openMotion = nil
        openProgress = clamp(progress(openProgress), 0, 1)
        scrubTracker?.add(openProgress, at: time)
        return true
    }

    /// Completes or reverts by progress and speed; never jumps.
    func endScrub() -> Bool {
        guard let tracker = scrubTracker else { return false }
        scrubTracker = nil
        let v = tracker.velocity(at: time)
        let opens = abs(v) > 0.5 ? v > 0 : openProgress > 0.5
        let target = opens ? 1.0 : 0.0
        phase = opens ? .opening : .closing
        openMotion = Motion(from: openProgress, to: target, start: time, duration: max(0.15, abs(target - openProgress)),
                            curve: .timing(.landing))
        return true
    }

    // MARK: Turning

    /// The spread `delta` away from `s`, through the data source when there is one.
    func neighbour(of s: Int, _ delta: Int) -> Int? {
        guard let info = laidOutBook else { return nil }
        let target: Int?
        // A data source names pages of spreads; one page at a time steps one image.
        if let source = dataSource, !singlePage {
            let anchor = LayoutPage(2 * s + 1)
            target = (delta > 0 ? source.page(after: anchor) : source.page(before: anchor)).map(info.spread(containing:))
        } else {
            target = s + delta
        }
        return target.flatMap { (0...info.lastSpread).contains($0) && $0 != s ? $0 : nil }
    }

    /// Where the spread will be once the current turn and the queue have played.
    var plannedSpread: Int {
        queue.last?.target ?? turn.map { $0.completes && !$0.rubber ? $0.to : $0.from } ?? spread
    }

    func step(_ delta: Int) -> Bool {
        guard phase == .reading || phase == .turning else { return false }
        if scrollsWithinPage(delta) { return true }
        guard let target = neighbour(of: plannedSpread, delta) else { return false }
        // The next page is read from its top, the previous one back from its bottom.
        if travel > 0 { scrollPage(toTop: delta > 0) }
        return request(target, completion: nil)
    }

    /// Turns to the spread showing layout page `n`. `direction` nil follows the page; a
    /// direction that contradicts it is refused. Not animated: the spread changes at once.
    /// A request made mid-turn waits for the turn under way and replaces the turns queued
    /// behind it (they are answered false): the reader asked to be elsewhere. `completion`
    /// gets true once it is shown.
    @discardableResult
    public func go(to n: LayoutPage, direction: TurnStyle.Direction? = nil, animated: Bool = true, at time: Double,
                   completion: ((Bool) -> Void)? = nil) -> Bool {
        update(to: time)
        guard let info = laidOutBook, let own = currentBook, phase == .reading || phase == .turning, (0..<own.pageCount).contains(n.index) else { return false }
        if animated { dropQueuedTurns() }
        let target = info.spread(containing: singlePage ? BookInfo.onePagePerSheet(page: n) : n), from = plannedSpread
        if let direction, target != from, (target > from) != (direction == .forward) { return false }
        guard animated else {
            guard turn == nil else { return false }
            spread = target
            notifyLayout()
            completion?(true)
            return true
        }
        if target == from, turn == nil {
            completion?(true)
            return true
        }
        // A jump of many spreads riffles: a few sheets turn in quick succession through the
        // pages between (a burst, at the queue's pace), never one sheet for hundreds of pages
        // and never a cut. Scripts (no queue lag) keep one full turn.
        let sheets = settings.queueLag == nil ? 1 : min(Self.riffleSheets, abs(target - from))
        for k in 1..<max(sheets, 1) { _ = request(from + (target - from) * k / sheets, completion: nil) }
        return request(target, completion: completion)
    }

    /// Sheets a long jump turns, the last landing on the target.
    public static let riffleSheets = 4

    func go(to n: LayoutPage) -> Bool { go(to: n, at: time) }

    /// Book `b` was laid out again (another text size): it now has `info`'s pages, and while it
    /// is open it shows layout page `n` at once. `mapping` says which page image (an index)
    /// holds the text an old one started with: a turn under way, whose sheet shows old pages,
    /// is cut, and it and the turns queued behind it go on to their mapped spreads (one whose
    /// text is gone is answered false). False when there is no such book.
    @discardableResult
    public func relaid(book b: Int, as info: BookInfo, showing n: LayoutPage, at time: Double,
                       mapping: (Int) -> Int? = { _ in nil }) -> Bool {
        update(to: time)
        guard library.indices.contains(b) else { return false }
        let before = library[b]
        library[b] = info
        guard book == b else { return true }
        // The spreads the turn under way and those queued head for, in the new layout.
        var planned: [(target: Int?, completion: ((Bool) -> Void)?)] = []
        if let current = turn {
            let heads = current.completes && !current.rubber ? [Pending(target: current.to, completion: current.completion)] : []
            if heads.isEmpty { current.completion?(false) }
            planned = (heads + queue).map { (image(shownFirstOn: $0.target, in: before).flatMap(mapping).map(spread(showingImage:)), $0.completion) }
            turn = nil
            queue = []
            phase = .reading
        }
        spread = min(spread, laidOutBook?.lastSpread ?? 0)
        if !go(to: clamp(n, .cover, info.lastPage), animated: false, at: time) { notifyLayout() }
        for (target, completion) in planned {
            guard let target else { completion?(false); continue }
            if target == plannedSpread { completion?(true) } else { _ = request(target, completion: completion) }
        }
        if turn == nil { playWaiting() }
        return true
    }

    /// The page image (an index) spread `s` shows first in `book` as the current page mode
    /// lays it out; nil for none.
    func image(shownFirstOn s: Int, in book: BookInfo) -> Int? {
        let j = singlePage ? s : max(2 * s - 1, 0)
        return j < book.imageCount ? j : nil
    }

    /// The spread that shows page image `j` (an index) of the open book.
    func spread(showingImage j: Int) -> Int {
        min(singlePage ? j : (j + 1) / 2, laidOutBook?.lastSpread ?? 0)
    }

    func request(_ target: Int, completion: ((Bool) -> Void)?) -> Bool {
        if turn != nil {
            queue.append(Pending(target: target, completion: completion))
            hurry()
        } else {
            startTurn(to: target, at: time, completion: completion)
        }
        return true
    }

    /// The shortest turn of a burst: a few frames, still seen as a turn.
    static let shortestTurn = 0.12

    /// A turn's share of `queueLag` while others wait behind it (the current one and one more
    /// press counted: keys keep coming in a burst).
    var burstDuration: Double {
        guard let lag = settings.queueLag else { return settings.turnDuration }
        return clamp(lag / Double(queue.count + 2), Self.shortestTurn, settings.turnDuration)
    }

    /// A turn asked for while another plays: the one under way speeds up to its share of the
    /// lag allowed, so the keys are never more than `queueLag` ahead of the pages.
    func hurry() {
        guard settings.queueLag != nil, var current = turn, let m = current.motion, current.releasePointer == nil, current.completes else { return }
        let share = burstDuration
        guard m.start + m.duration - time > share else { return }
        // From where the sheet is, at the speed it has, easing into its landing.
        current.motion = Motion(from: current.progress, to: 1, start: time, duration: share, curve: .timing(.landing))
        turn = current
    }

    /// `burst`: the turn follows one that ended into the queue, and takes its share of the lag.
    func startTurn(to target: Int, at start: Double, burst: Bool = false, completion: ((Bool) -> Void)?) {
        let size = pageSize
        let side: Side = target > spread ? .right : .left
        let duration = burst ? burstDuration : settings.turnDuration
        turn = Turn(from: spread, to: target,
                    motion: Motion(from: 0, to: 1, start: start, duration: duration, curve: .turn(settings.turnCurve)),
                    grab: Vec2(size.x, -size.y / 2), side: side, completion: completion)
        phase = .turning
    }

    var pageSize: Vec2 {
        (currentBook ?? BookInfo(imageCount: 0)).laidOutPageSize(settings.style.orientation)
    }

    func advanceTurn(_ t: Double) {
        guard var current = turn, let m = current.motion else { return }
        current.progress = m.value(at: t)
        if let from = current.releasePointer {
            let end = current.completes ? Vec2(-current.grab.x, current.grab.y) : current.grab
            let f = CurlTurn.settling(m.fraction(at: t), leaving: current.releaseSpeed)
            current.pointer = from + (end - from) * f
        }
        turn = current
        guard m.isDone(at: t) else { return }
        turn = nil
        let completed = current.completes && !current.rubber
        if completed { spread = current.to }
        phase = .reading
        if !current.rubber { delegate?.controller(self, didFinishTurnFrom: current.from, to: current.to, completed: completed) }
        current.completion?(completed)
        playWaiting()
        if !queue.isEmpty {
            var next = queue.removeFirst()
            // A burst too long to play within the lag allowed turns straight to where it ends,
            // riffling through the pages between; every request it stands for is answered.
            if let lag = settings.queueLag, Double(queue.count + 1) * Self.shortestTurn > lag {
                let merged = [next] + queue
                queue = []
                next = Pending(target: merged[merged.count - 1].target) { done in merged.forEach { $0.completion?(done) } }
            }
            if next.target == spread {
                next.completion?(true)
            } else {
                // The next turn starts when this one ended, however late the update came.
                startTurn(to: next.target, at: m.start + m.duration, burst: true, completion: next.completion)
                advanceTurn(t)
            }
        }
    }

    /// View point → the book's own frame (undoing zoom, right-to-left mirror and calendar turn).
    func bookPoint(_ p: Vec2) -> Vec2 {
        guard let info = laidOutBook, let inv = bookFrame(viewState(), book: info).inverse else { return p }
        let local = inv.project(Vec3(p.x, p.y, 0))
        return Vec2(local.x, local.y)
    }

    func beginPageDrag(at p: Vec2) -> Bool {
        guard phase == .reading, queue.isEmpty else { return false }
        let local = bookPoint(p)
        let size = pageSize
        // One page shown: its half by the spine holds the sheet before it (lying beyond the
        // spine), dragged back over the page.
        let side: Side = local.x >= (singlePage ? size.x / 2 : 0) ? .right : .left
        // The page is held by its outer edge (by the corner near the head or tail) and that
        // point follows the pointer: pressing inside the page never folds a strip over at once.
        let pressed = Vec2(side == .right ? local.x : -local.x, clamp(local.y, -size.y / 2, size.y / 2))
        let nearEnd = abs(pressed.y) > 0.35 * size.y
        let grab = Vec2(size.x, nearEnd ? (pressed.y < 0 ? -size.y / 2 : size.y / 2) : pressed.y)
        let target = neighbour(of: spread, side == .right ? 1 : -1)
        turn = Turn(from: spread, to: target ?? spread, grab: grab, pointer: grab, offset: grab - pressed,
                    rubber: target == nil, side: side)
        turn?.tracker.add(0, at: time)
        phase = .turning
        return true
    }

    func movePageDrag(to p: Vec2) -> Bool {
        guard var current = turn, current.motion == nil else { return false }
        let local = bookPoint(p)
        let pointer = CurlTurn.reachable(Vec2(current.side == .right ? local.x : -local.x, local.y) + (current.offset ?? .zero),
                                         grab: current.grab, size: pageSize)
        let raw = CurlTurn.progress(grab: current.grab, pointer: pointer)
        // Past the first or last page the sheet only gives a little and always comes back.
        current.progress = current.rubber ? 0.1 * raw / (raw + 0.25) : raw
        current.pointer = pointer
        current.tracker.add(current.progress, at: time)
        turn = current
        return true
    }

    /// Completes past halfway or on a fast flick, else falls back.
    func endPageDrag() -> Bool {
        guard var current = turn, current.motion == nil else { return false }
        let v = current.tracker.velocity(at: time)
        current.completes = !current.rubber && (abs(v) > settings.flickVelocity ? v > 0 : current.progress > 0.5)
        let target = current.completes ? 1.0 : 0.0
        // The landing takes the time the sheet's own way left takes a turn: a dragged sheet curls
        // (`viewState`) and lags the pointer; timed by the pointer's way it fell from upright in
        // four frames.
        let sheet = settings.deform != .cone && !current.rubber
            ? CurlTurn.turned(grab: current.grab, pointer: current.pointer ?? current.grab, size: pageSize) : current.progress
        let duration = max(0.15, settings.turnDuration * abs(target - sheet))
        current.motion = Motion(from: current.progress, to: target, start: time, duration: duration,
                                curve: .timing(.landing))
        current.releasePointer = current.pointer
        // The pointer goes on at the hand's speed (progress is the pointer's way across).
        let left = abs(target - current.progress)
        current.releaseSpeed = left > 1e-9 ? (current.completes ? v : -v) * duration / left : 0
        turn = current
        return true
    }

    /// Whether the turn under way (if any) is heading to land.
    public var turnCompletes: Bool? { turn.map { $0.completes && !$0.rubber } }
    /// Turns waiting behind the current one.
    public var queuedTurns: Int { queue.count }
    /// Actions accepted that wait: for the turn under way to land, or for the book to open.
    public var actionsWaiting: [Action] { waiting.map(\.action) }
}
