import FolioBook
import FolioReader
import Foundation

/// Where a page turn came from.
public enum TurnOrigin: Sendable, Equatable {
    /// A key of the key map.
    case key
    /// A click, drag or scroll of the pointer.
    case gesture
    /// The host program (`FramePipeline.perform`).
    case code
}

/// Hears what the pipeline did and asks for what only its host can do.
public protocol FramePipelineDelegate: AnyObject {
    /// A turn (or a page drag) started; `origin` says who asked for it.
    func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin)
    /// An action only the host can carry out, or one it may remember (a screenshot, the help
    /// text, a theme): the host writes files and prints.
    func pipeline(_ pipeline: FramePipeline, asksFor action: Action, at time: Double)
    /// A page file could not be read, or a frame could not be drawn: one line for a person.
    func pipeline(_ pipeline: FramePipeline, problem: String)
    /// A click on a page at `point`: true when the host acted on it (followed a link), and the
    /// click then does not turn the page.
    func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool
    /// A link chosen elsewhere than on a page (a row of a note's card), of the document of page
    /// image `image` (0-based): true when the host followed it.
    func pipeline(_ pipeline: FramePipeline, follows target: LinkTarget, from image: Int, at time: Double) -> Bool
}

extension FramePipelineDelegate {
    public func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin) {}
    public func pipeline(_ pipeline: FramePipeline, asksFor action: Action, at time: Double) {}
    public func pipeline(_ pipeline: FramePipeline, problem: String) { FramePipeline.printProblem(problem) }
    public func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool { false }
    public func pipeline(_ pipeline: FramePipeline, follows target: LinkTarget, from image: Int, at time: Double) -> Bool { false }
}
