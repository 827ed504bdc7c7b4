/// Errors scand reports. Every message names the input, device or file it concerns.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A command-line or configuration value is wrong.
    case invalidArgument(String)
    /// An input could not be opened or read (`input`: path or `-`).
    case unreadableInput(input: String, reason: String)
    /// An input was read but is not a picture or video scand can decode.
    case undecodableInput(input: String, reason: String)
    /// A model (cascade) file is missing or corrupt.
    case model(file: String, reason: String)
    /// A capture device failed.
    case device(path: String, reason: String)
    /// A detector failed on a frame.
    case detector(String)
    /// An output (stdout, socket) failed.
    case output(String)

    public var description: String {
        switch self {
        case .invalidArgument(let m): return m
        case .unreadableInput(let i, let r): return "\(i): cannot read: \(r)"
        case .undecodableInput(let i, let r): return "\(i): cannot decode: \(r)"
        case .model(let f, let r): return "\(f): model file: \(r)"
        case .device(let p, let r): return "\(p): \(r)"
        case .detector(let m): return "detector: \(m)"
        case .output(let m): return "output: \(m)"
        }
    }
}
