import Foundation

/// Which links leave the book: http, https and mailto open in the desktop's own application
/// (`xdg-open`); anything else (`javascript:`, `file:`, a command) is refused with a notice.
public enum LinkPolicy {
    public static let schemes: Set<String> = ["http", "https", "mailto"]

    /// The notice for a link that is not opened; nil when `uri` may open.
    public static func refusal(_ uri: String) -> String? {
        let printable = String(uri.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(120).map(Character.init))
        guard let colon = uri.firstIndex(of: ":") else { return "link not opened: \"\(printable)\" names no scheme" }
        let scheme = uri[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            return "link not opened: \(scheme.isEmpty ? "no" : "\"\(scheme.prefix(20))\"") scheme (only http, https and mailto open)"
        }
        // Control characters and spaces never belong in a link a reader meant to follow.
        guard !uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }), uri.count <= 8192 else {
            return "link not opened: \"\(printable)\" is not a well-formed address"
        }
        return nil
    }

    /// Opens `uri` with `xdg-open` (started directly with it as its one argument, no shell,
    /// not waited for); the notice when it is refused or cannot start, nil when started.
    public static func open(_ uri: String, opener: String = "xdg-open") -> String? {
        if let refusal = refusal(uri) { return refusal }
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(opener), strdup(uri), nil]
        defer { for a in argv { free(a) } }
        let status = posix_spawnp(&pid, opener, nil, nil, argv, environ)
        guard status == 0 else { return "link not opened: cannot start \(opener): \(String(cString: strerror(status)))" }
        // Reaped on a thread of its own: no zombie, and the reader never waits for it.
        let child = pid
        Thread.detachNewThread { var s: Int32 = 0; _ = waitpid(child, &s, 0) }
        return nil
    }
}
