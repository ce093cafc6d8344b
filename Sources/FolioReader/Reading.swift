import FolioBook
import FolioInput
import Foundation
import FolioState

/// Typing a page number in the viewer: digits, then Enter or G goes to that page; Backspace
/// takes a digit back, Escape forgets them. Keys that are not for it pass on (and forget the
/// digits typed), so the key map is untouched while nothing is typed.
public struct PageNumberEntry: Sendable, Equatable {
    /// The digits typed so far.
    public private(set) var digits = ""

    public enum Outcome: Sendable, Equatable {
        /// The key was taken: show `digits`.
        case typing
        /// Go to this page number (1 = the first page image).
        case go(Int)
    }

    public init() {}

    /// What `key` does to the entry; nil when it is not for the entry (handle it as usual).
    public mutating func handle(_ key: Key) -> Outcome? {
        if let d = key.digit {
            // Six digits: a million pages, and no overflow.
            if digits.count < 6 && !(digits.isEmpty && d == 0) { digits.append(String(d)) }
            return .typing
        }
        guard !digits.isEmpty else { return nil }
        switch key {
        case .enter, .g:
            let n = Int(digits)!
            digits = ""
            return .go(n)
        case .backspace:
            digits.removeLast()
            return .typing
        case .escape:
            digits = ""
            return .typing
        default:
            digits = ""
            return nil
        }
    }
}

extension Key {
    /// The digit a number key types.
    public var digit: Int? {
        switch self {
        case .n0: 0
        case .n1: 1
        case .n2: 2
        case .n3: 3
        case .n4: 4
        case .n5: 5
        case .n6: 6
        case .n7: 7
        case .n8: 8
        case .n9: 9
        default: nil
        }
    }
}

/// Where each book was left, kept in the state store (`StateStore`, by what the book is rather
/// than where): its page number and, for a reflowable document, its layout and place in the
/// text (`ReadingPosition`), found again in any layout through `documents`.
public struct ReadingPositions: Sendable {
    public let store: StateStore
    /// Where a reflowable book's document is found, to place a position saved in another layout.
    public let documents: DocumentRegistry

    public init(store: StateStore, documents: DocumentRegistry = DocumentRegistry()) {
        (self.store, self.documents) = (store, documents)
    }

    /// Where `book` was left as it was saved, in the layout it was saved in.
    public func saved(of book: Book) -> ReadingPosition? { store.position(of: book) }

    /// The page number `book` was left at, if any: for a reflowable document, the page that
    /// holds the place in the text it was left at, whatever size it is laid out at now.
    public func page(of book: Book) -> Int? {
        saved(of: book)?.page(in: ReadingPosition.reflowable(book, in: documents))
    }

    /// Remembers `page` for `book`, with `seconds` more read in it; false when it cannot be written.
    @discardableResult
    public func save(page: Int, of book: Book, readingSeconds seconds: Double = 0) -> Bool {
        store.save(ReadingPosition(page: page, of: book, in: documents), of: book, readingSeconds: seconds)
    }
}
