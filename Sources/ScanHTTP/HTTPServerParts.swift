import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ScanCapture
import ScanCore
import ScanKit
import ScanOutput
import ServiceLifecycle

/// The objects of a frame as the page and `/state` read them: the same fields as in `metadata` events.
enum ObjectsJSON {
    static func encode(_ objects: [MetadataObject]) -> [UInt8] {
        // One metadata event's `objects` array, taken from the stream's own encoder.
        let event = MetadataEvent(source: "", frame: 0, time: 0, width: 1, height: 1, objects: objects)
        let line = JSONLinesEncoder().encode(.metadata(event), seq: nil, timestamp: nil).line
        guard let doc = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let list = doc["objects"],
            let data = try? JSONSerialization.data(withJSONObject: list, options: [.withoutEscapingSlashes])
        else { return Array("[]".utf8) }
        return Array(data)
    }
}

/// A counter shared by request tasks.
final class AtomicCount: Sendable {
    private let count = Locked(0)
    func add(_ n: Int) -> Int {
        count.withLock {
            $0 += n
            return $0
        }
    }
    var value: Int { count.withLock { $0 } }
}

/// Refuses every request without the bearer token (401), except the page shell `GET /` (and a camera's
/// `GET /cameras/NAME/`), which holds no data: the page reads the token from its URL fragment
/// (`/#token=…`, never sent to the server) and sends it with each request it makes. The WebSocket may carry it as the subprotocol `scand-token.TOKEN`.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext
    static let subprotocolPrefix = "scand-token."
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let token else { return try await next(request, context) }
        if request.method == .get && Self.isPageShell(request.uri.path) { return try await next(request, context) }
        var presented: String?
        if let auth = request.headers[.authorization], auth.lowercased().hasPrefix("bearer ") {
            presented = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if let offered = request.headers[.secWebSocketProtocol] {
            presented = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(Self.subprotocolPrefix) }.map {
                    String($0.dropFirst(Self.subprotocolPrefix.count))
                }
        }
        guard let presented, Self.constantTimeEqual(Array(presented.utf8), Array(token.utf8)) else {
            return Response(
                status: .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"scand\"", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "missing or wrong bearer token\n")))
        }
        return try await next(request, context)
    }

    /// The page's own paths, `/` and a camera's `/cameras/NAME/` (or without the slash, redirected): the
    /// shell holds no data.
    static func isPageShell(_ path: String) -> Bool {
        if path == "/" { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // "/cameras/NAME/" splits as ["", "cameras", NAME, ""]; without the slash, ["", "cameras", NAME].
        return parts.count >= 3 && parts.count <= 4 && parts[0].isEmpty && parts[1] == "cameras" && !parts[2].isEmpty
            && (parts.count == 3 || parts[3].isEmpty)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) { diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return diff == 0
    }
}

/// Hummingbird's HTTP/WebSocket child channel behind a descriptor check: a connection that leaves fewer than
/// ``DescriptorHeadroom/reserve`` descriptors free below the limit is closed before any byte is read, as the
/// socket server refuses one (the process keeps room for libdispatch, the broker and the spool).
struct HeadroomGuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let refusals: HeadroomRefusals

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let free = DescriptorHeadroom.free()
        guard free >= DescriptorHeadroom.reserve else {
            refusals.refused(free: free)
            return channel.close().flatMapThrowing { throw HeadroomRefused() }
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

struct HeadroomRefused: Error {}

/// Logs refused HTTP connections at most once a minute (a client retrying at the limit would flood the log).
final class HeadroomRefusals: Sendable {
    private let logger: Logger
    private let throttle = Locked(ReportThrottle(interval: .seconds(60)))
    init(logger: Logger) { self.logger = logger }

    func refused(free: Int) {
        if let count = throttle.withLock({ $0.record() }) {
            logger.warning(
                "http: refusing new connections: only \(free) descriptors left below the limit (\(DescriptorHeadroom.reserve) are kept free; logged at most once a minute)",
                metadata: ["refused": "\(count)"])
        }
    }
}
