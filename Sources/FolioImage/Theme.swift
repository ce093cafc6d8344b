/// The colours a reader reads in: paper (the pages as they are), sepia and night. One table
/// for everything that draws a page: the page shader recolours printed pages with `paper` and
/// `ink`, and a reflowable book's stylesheet can take the same two colours (`css`).
public enum Theme: String, Sendable, CaseIterable, Codable {
    case paper, sepia, night

    /// An RGB colour, 0…1 a channel.
    public typealias Colour = (r: Double, g: Double, b: Double)

    /// What white paper becomes.
    public var paper: Colour {
        switch self {
        case .paper: (1, 1, 1)
        case .sepia: (0.98, 0.93, 0.82)
        case .night: (0.13, 0.13, 0.14)
        }
    }

    /// What black print becomes: lighter than the paper at night.
    public var ink: Colour {
        switch self {
        case .paper: (0, 0, 0)
        case .sepia: (0.30, 0.22, 0.13)
        case .night: (0.80, 0.79, 0.76)
        }
    }

    /// The room around the book is multiplied by this: dimmer at night, warmer in sepia.
    public var room: Colour {
        switch self {
        case .paper: (1, 1, 1)
        case .sepia: (1.0, 0.93, 0.80)
        case .night: (0.45, 0.45, 0.50)
        }
    }

    /// Whether pages are recoloured at all (the paper theme shows them as they are).
    public var recolours: Bool { self != .paper }

    /// The next theme, for a key that cycles them.
    public var next: Theme {
        let all = Theme.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// `paper` and `ink` as CSS colours ("#rrggbb"), for a reflowable book's user stylesheet.
    public var css: (background: String, text: String) { (Self.hex(paper), Self.hex(ink)) }

    private static func hex(_ c: Colour) -> String {
        "#" + [c.r, c.g, c.b].map { v -> String in
            let s = String(Int((min(max(v, 0), 1) * 255).rounded()), radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
