import ScanCore
import ScanKit
import ScanDaemon

/// The `scand run --config` parser: any bytes give a config or one `invalidArgument` error naming the file.
enum ConfigTarget {
    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        do {
            _ = try DaemonConfigFile.parse(Array(data), name: "fuzz.json")
        } catch let error as ScanError {
            guard case .invalidArgument(let message) = error else { fatalError("unexpected error kind: \(error)") }
            fuzzCheck(!message.isEmpty, "empty error message")
        } catch {
            fatalError("not a ScanError: \(error)")
        }
    }
}
