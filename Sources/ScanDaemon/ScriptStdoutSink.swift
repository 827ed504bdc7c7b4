import FoundationEssentials
public import Logging
public import ScanCore
public import ScanKit
import ScanOutput

/// `run --raw` / `run --oneshot`: stdout carries only `appeared` events (codes and faces of `--types`), as
/// their JSON line or, with `--raw`, the code's value alone (see ``RawValue``; faces are not printed). With
/// `--oneshot`, only the first one, then `onDone` (the run stops and exits 0).
///
/// `deliver` is called under the daemon's emitter lock: it only decodes one line and queues it on `target`
/// (a ``QueuedSink``, which never blocks).
final class ScriptStdoutSink: EventSink, Sendable {
    private let target: QueuedSink
    private let mode: ScanOutputMode
    private let oneshot: Bool
    private let logger: Logger
    private let onDone: @Sendable () -> Void
    private let state = Locked((done: false, notedBinary: false, printed: 0))
    /// Lines handed to stdout so far (`run --raw` that printed nothing exits 4, as `scan --raw` does).
    var linesPrinted: Int { state.withLock { $0.printed } }

    init(
        target: QueuedSink, mode: ScanOutputMode, oneshot: Bool, logger: Logger, onDone: @escaping @Sendable () -> Void
    ) {
        self.target = target
        self.mode = mode
        self.oneshot = oneshot
        self.logger = logger
        self.onDone = onDone
    }

    private struct Appeared: Decodable {
        var type: String
        var value: String?
        var bytes: String?
        var source: String?
    }

    func deliver(_ event: EncodedEvent) {
        guard event.name == "appeared" else { return }
        let finished = state.withLock { state -> Bool in
            guard !state.done else { return false }
            let line: [UInt8]
            switch mode {
            case .json:
                line = event.line
            case .raw(let rawBytes):
                guard let a = try? JSONDecoder().decode(Appeared.self, from: Data(event.line)),
                    let type = MetadataObjectType(rawValue: a.type)
                else { return false }
                let payload = a.bytes.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
                let (raw, binary) = RawValue.line(type: type, value: a.value, payload: payload, rawBytes: rawBytes)
                if binary && !state.notedBinary {
                    state.notedBinary = true
                    logger.warning("\(RawValue.skippedNote(input: a.source ?? "input"))")
                }
                guard let raw else { return false }
                line = raw
            }
            target.deliver(EncodedEvent(name: event.name, objectTypes: event.objectTypes, line: line, seq: event.seq))
            state.printed += 1
            if oneshot { state.done = true }
            return oneshot
        }
        if finished { onDone() }
    }

    func finish() { target.finish() }
}

/// The daemon's stdout sink (`run --stdout`).
public enum DaemonStdout {
    /// stdout behind a bounded queue with a thread of its own: a stalled reader loses its oldest events (with
    /// an `overflow` line), never slows the pipeline, a camera or the socket clients. `queueCapacity` events
    /// at most wait. With `--raw`/`--raw-bytes` (`mode`) or `oneshot`, a ``ScriptStdoutSink`` in front.
    /// A reader that goes away or a write error ends the run through `mailbox`; so does the one-shot's event.
    public static func sink(
        queueCapacity: Int, mode: ScanOutputMode, oneshot: Bool, mailbox: DaemonMailbox,
        logger: Logger
    ) -> any EventSink {
        sinkCountingLines(queueCapacity: queueCapacity, mode: mode, oneshot: oneshot, mailbox: mailbox, logger: logger)
            .sink
    }

    /// ``sink(queueCapacity:mode:oneshot:mailbox:logger:)`` and, with `--raw`/`--oneshot`, how many lines it has
    /// printed so far (nil for plain JSON lines).
    public static func sinkCountingLines(
        queueCapacity: Int, mode: ScanOutputMode, oneshot: Bool, mailbox: DaemonMailbox,
        logger: Logger
    ) -> (sink: any EventSink, printed: (@Sendable () -> Int)?) {
        let stdoutSink = FileDescriptorSink(fd: 1, name: "stdout") { failure in
            mailbox.post(.ended(failure == .readerGone ? .outputClosed : .outputFailed(failure.description)))
        }
        let queued = QueuedSink(target: stdoutSink, capacity: queueCapacity)
        guard mode != .json || oneshot else { return (queued, nil) }
        let script = ScriptStdoutSink(target: queued, mode: mode, oneshot: oneshot, logger: logger) {
            mailbox.post(.ended(.completed))
        }
        return (script, { script.linesPrinted })
    }
}
