import ScanCore

/// A pipe (a FIFO, or stdin from another program) is a live source as a camera is: when its writer sends no
/// frame for `timeout` seconds, the source is reported stalled (`wasInterrupted`, as a camera's frame
/// watchdog reports it), and `interruptionEnded` when frames come again. The watch's thread sleeps until the
/// deadline of the last frame, or (once stalled) until the next frame: it does not wake while frames flow.
final class StallWatch: Sendable {
    private struct State: Sendable {
        var lastFrame = MonotonicInstant.now
        var frames: UInt64 = 0
        var stopped = false
    }
    private let state = Locked(State())
    private let thread: Locked<WorkerThread?> = Locked(nil)

    /// Starts watching; `report` gets each `wasInterrupted` and `interruptionEnded` (on the watch's thread).
    init(timeout: Double, device: String, report: @escaping @Sendable (DeviceEvent) -> Void) {
        let state = self.state
        let worker = WorkerThread(name: "scand-stall") {
            Self.watch(state, timeout: .milliseconds(Int64(timeout * 1000)), device: device, report: report)
        }
        thread.withLock { $0 = worker }
    }

    private static func watch(
        _ state: Locked<State>, timeout: Duration, device: String, report: @Sendable (DeviceEvent) -> Void
    ) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        while true {
            // Flowing: sleep until the last frame's deadline (a frame meanwhile moves it on).
            while true {
                let deadline = state.withLock { $0.lastFrame.advanced(by: timeout) }
                let stoppedNow: (State) -> Bool = { $0.stopped }
                let (stopped, last) = state.withLock(waitingUntil: stoppedNow, deadline: deadline) {
                    ($0.stopped, $0.lastFrame)
                }
                if stopped { return }
                if MonotonicInstant.now >= last.advanced(by: timeout) { break }
            }
            report(
                DeviceEvent(
                    kind: .interrupted, device: device, reason: "no frame for \(seconds) s (the writer stopped sending)"
                ))
            // Stalled: sleep until the next frame.
            let before = state.withLock { $0.frames }
            let frameOrStop: (State) -> Bool = { $0.stopped || $0.frames != before }
            let resumed = state.withLock(waitingUntil: frameOrStop) { !$0.stopped }
            if !resumed { return }
            report(DeviceEvent(kind: .interruptionEnded, device: device))
        }
    }

    /// A frame came from the source.
    func frameArrived() {
        state.withLock {
            $0.frames += 1
            $0.lastFrame = .now
        }
        state.broadcast()
    }

    /// Stops watching (the source ended, or the pipeline stops) and waits for the watch's thread.
    func stop() {
        state.withLock { $0.stopped = true }
        state.broadcast()
        if let worker = thread.withLock({ $0 }) { _ = worker.join(timeout: .seconds(2)) }
    }
}
