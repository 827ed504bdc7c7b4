import ScanCore
import ScanOutput

/// The socket command parser: one client line, as `SocketServer` hands it over (without the `\n`).
/// A parsed subscription may only hold known types and event names.
enum SubscribeTarget {
    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        do {
            let sub = try Subscription.parse(command: Array(data))
            if let events = sub.events { fuzzCheck(events.isSubset(of: Subscription.eventNames), "unknown event accepted: \(events)") }
            if let types = sub.types { fuzzCheck(types.allSatisfy { MetadataObjectType(rawValue: $0.rawValue) == $0 }, "type") }
        } catch {
            fuzzCheck(!error.message.isEmpty, "empty error message")
        }
    }
}
