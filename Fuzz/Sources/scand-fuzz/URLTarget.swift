@testable import ScanCapture
import ScanCore

/// A network camera's URL (issue 49), any bytes as the SOURCE of `--camera NAME=SOURCE`, and credentials
/// put into it. Checks: a URL with credentials in its authority is refused and its message shows them as
/// `***`; the redacted form has no control character; credentials put into a URL without any come back
/// percent-decoded from its authority, and the rest of the URL is kept.
enum URLTarget {
    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(data)
        // The first line is the URL, the rest the credentials.
        let cut = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let url = String(decoding: bytes[..<cut], as: UTF8.self)
        let credentials = String(decoding: bytes[min(cut + 1, bytes.count)...], as: UTF8.self)
        typealias C = NetworkCameraConfiguration
        let authority = C.authority(of: url)
        let redacted = C.redacted(url)
        fuzzCheck(!redacted.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control in \(redacted)")
        if let at = authority.lastIndex(of: "@") {
            // Refused, and the message shows the URL as scheme://***@ and what follows the credentials.
            let problem = C.problem(withURL: url) ?? ""
            fuzzCheck(
                problem.hasPrefix(redacted + ":") || (!C.isStreamURL(url) && problem.hasPrefix("'\(redacted)'")),
                "message does not show the redacted URL: \(problem)")
            if C.isStreamURL(url) {
                let rest = C.printable(String(url[at...]))
                fuzzCheck(redacted == C.printable(String(url[..<C.afterScheme(url)!])) + "***" + rest, "redacted: \(redacted)")
            }
        } else if C.problem(withURL: url) == nil {
            fuzzCheck(C.isStreamURL(url), "accepted a non-URL: \(url)")
            guard credentials.contains(":") else { return }
            let c = NetworkCameraConfiguration(url: url, credentials: credentials)
            let made = c.connectURL
            let start = C.afterScheme(made)!
            fuzzCheck(made[..<start] == url[..<C.afterScheme(url)!], "scheme changed: \(made)")
            let madeAuthority = C.authority(of: made)
            let at = madeAuthority.lastIndex(of: "@")!
            fuzzCheck(percentDecoded(madeAuthority[..<at]) == Array(credentials.utf8), "credentials not kept: \(made)")
            fuzzCheck(!madeAuthority[..<at].contains("/") && !madeAuthority[..<at].contains("@"), "unescaped: \(made)")
            fuzzCheck(made[madeAuthority.index(after: at)...] == url[C.afterScheme(url)!...], "rest changed: \(made)")
        }
    }

    static func percentDecoded(_ s: Substring) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        func hex(_ b: UInt8) -> UInt8 { b <= 0x39 ? b - 0x30 : b - 0x41 + 10 }
        while i < u.endIndex {
            if u[i] == 0x25 {
                let a = u[u.index(after: i)], b = u[u.index(i, offsetBy: 2)]
                out.append(hex(a) << 4 | hex(b))
                i = u.index(i, offsetBy: 3)
            } else {
                out.append(u[i])
                i = u.index(after: i)
            }
        }
        return out
    }
}
