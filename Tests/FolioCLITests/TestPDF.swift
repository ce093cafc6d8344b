import Foundation

/// PDFs written by hand for the command-line tests: objects numbered from 1 (the first is the
/// catalog), with a cross-reference table that is right.
enum TestPDF {
    static func document(_ objects: [String]) -> Data {
        var text = "%PDF-1.4\n", offsets: [Int] = []
        for (i, object) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(i + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n" + offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(text.utf8)
    }

    /// A stream object: `dict`'s entries and `body`, its length filled in.
    static func stream(_ dict: String, _ body: String) -> String {
        "<< \(dict) /Length \(body.utf8.count) >>\nstream\n\(body)\nendstream"
    }

    /// Form XObjects numbered from `first`, nesting `depth` deep, each drawing the next twice,
    /// the last filling `fills` squares: 2^depth drawings for a page that draws the first (20
    /// deep with 40 fills: minutes of poppler's time; deeper is refused before poppler sees it).
    static func nestedForms(from first: Int, depth: Int, fills: Int = 40) -> [String] {
        (0..<depth).map { k in
            let last = k == depth - 1
            return stream("/Type /XObject /Subtype /Form /BBox [0 0 200 280]" + (last ? "" : " /Resources << /XObject << /X \(first + k + 1) 0 R >> >>"),
                          last ? Array(repeating: "0 0 1 rg 10 10 20 20 re f", count: fills).joined(separator: " ") : "/X Do /X Do")
        }
    }
}
