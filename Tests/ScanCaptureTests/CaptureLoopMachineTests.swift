import Testing
import ScanCore
@testable import ScanCapture

/// The capture thread's decisions without a device: what each open, read and stall leads to.
@Suite struct CaptureLoopMachineTests {
    typealias M = CaptureLoopMachine

    /// The kinds of the emitted events, in order.
    func kinds(_ actions: [M.Action]) -> [DeviceEvent.Kind] {
        actions.compactMap { if case .emit(let k, _) = $0 { return k } else { return nil } }
    }

    @Test("absent at start with waitForDevice: waiting, quiet retries, then connected + started")
    func waitingForTheCamera() {
        var m = M(waitingForDevice: true, eioReopenThreshold: 5)
        #expect(kinds(m.started()) == [.waiting])
        for _ in 0..<3 { #expect(m.openFailed(.quiet) == [.backOff]) }
        #expect(m.openFailed(.absent("no such device")) == [.backOff], "no deviceDisconnected while waiting")
        #expect(m.link == .waiting && !m.isInterrupted)
        let opened = m.opened(path: "/dev/video0", summary: "640x480 YUYV at 15 fps")
        #expect(opened == [.emit(.connected, "/dev/video0"), .emit(.started, "640x480 YUYV at 15 fps"), .resetBackOff])
        #expect(m.link == .streaming)
    }

    @Test("waiting, then the device appears with a size it refuses: fatal, as on a normal start")
    func waitingThenRefused() {
        var m = M(waitingForDevice: true, eioReopenThreshold: 5)
        _ = m.started()
        #expect(m.openFailed(.refused("does not offer 1000x700")) == [.emit(.runtimeError, "does not offer 1000x700"), .fail("does not offer 1000x700")])
        #expect(m.link == .failed)
    }

    @Test("a normal start reports nothing before its stream; a refused format on the first open is fatal")
    func freshStart() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        #expect(m.started().isEmpty)
        #expect(m.openFailed(.refused("no")).last == .fail("no"))
    }

    @Test("the node vanishing between the check and the first open counts as unplugged")
    func vanishedAtFirstOpen() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        #expect(kinds(m.openFailed(.absent("gone"))) == [.disconnected])
        #expect(m.isInterrupted)
        #expect(kinds(m.opened(path: "/dev/video0", summary: "s")) == [.connected, .started])
        #expect(!m.isInterrupted && m.link == .streaming)
    }

    @Test("unplug while streaming: disconnected once, quiet while gone, connected + started on return")
    func unplugAndReturn() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        _ = m.opened(path: "/dev/video0", summary: "s")
        #expect(m.read(.frame).isEmpty)
        let gone = m.read(.gone)
        #expect(gone.first == .closeStream && kinds(gone) == [.disconnected] && gone.last == .resetBackOff)
        #expect(m.isInterrupted)
        #expect(m.openFailed(.absent("gone")) == [.backOff] && m.openFailed(.quiet) == [.backOff])
        #expect(kinds(m.opened(path: "/dev/video0", summary: "s")) == [.connected, .started])
        #expect(m.read(.frame).isEmpty, "it was not interrupted before the unplug: no interruptionEnded")
    }

    @Test("a stall: wasInterrupted once, reopen, interruptionEnded with the first frame; an unplug meanwhile keeps it")
    func stallThenUnplug() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        _ = m.opened(path: "/dev/video0", summary: "s")
        let stall = m.stalled(stallTimeout: 2)
        #expect(kinds(stall) == [.interrupted] && stall.last == .closeStream)
        #expect(kinds(m.opened(path: "/dev/video0", summary: "s")) == [.started])
        #expect(m.stalled(stallTimeout: 2) == [.closeStream], "reported once")
        _ = m.opened(path: "/dev/video0", summary: "s")
        #expect(kinds(m.read(.gone)) == [.disconnected])
        #expect(m.link == .disconnected(wasInterrupted: true))
        #expect(kinds(m.opened(path: "/dev/video0", summary: "s")) == [.connected, .started])
        #expect(m.isInterrupted)
        #expect(kinds(m.read(.frame)) == [.interruptionEnded])
        #expect(!m.isInterrupted)
    }

    @Test("a stall, then the node goes while it is reopened: disconnected once; on return connected + started, still interrupted")
    func stallThenNodeGone() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        _ = m.opened(path: "/dev/video10", summary: "s")
        #expect(kinds(m.stalled(stallTimeout: 1)) == [.interrupted])
        #expect(kinds(m.openFailed(.quiet)).isEmpty, "not a capture device for now: quiet")
        #expect(kinds(m.openFailed(.absent("no such device"))) == [.disconnected])
        #expect(m.link == .disconnected(wasInterrupted: true))
        #expect(kinds(m.openFailed(.absent("no such device"))).isEmpty, "reported once")
        #expect(kinds(m.opened(path: "/dev/video10", summary: "s")) == [.connected, .started])
        #expect(kinds(m.read(.frame)) == [.interruptionEnded])
    }

    @Test("EIO: tolerated up to the threshold, then one runtimeError and a reopen; a frame resets the count")
    func eioThreshold() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 3)
        _ = m.opened(path: "/dev/video0", summary: "s")
        #expect(m.read(.eio).isEmpty && m.read(.eio).isEmpty)
        _ = m.read(.frame)
        #expect(m.read(.eio).isEmpty && m.read(.eio).isEmpty)
        let third = m.read(.eio)
        #expect(third == [.emit(.runtimeError, "3 consecutive EIO errors from DQBUF; reopening the device"), .closeStream])
        #expect(m.read(.eio).isEmpty, "the count starts again")
    }

    @Test("busy is reported once; other errors once per distinct reason; a refusal after streaming is retried")
    func retriesAreReportedOnce() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        #expect(kinds(m.openFailed(.busy("busy"))) == [.runtimeError])
        #expect(kinds(m.openFailed(.busy("busy"))).isEmpty)
        #expect(kinds(m.openFailed(.other("a"))) == [.runtimeError])
        #expect(kinds(m.openFailed(.other("a"))).isEmpty)
        #expect(kinds(m.openFailed(.other("b"))) == [.runtimeError])
        _ = m.opened(path: "/dev/video0", summary: "s")
        _ = m.read(.gone)
        let refused = m.openFailed(.refused("no"))
        #expect(refused == [.emit(.runtimeError, "no; retrying"), .backOff])
        #expect(m.link == .disconnected(wasInterrupted: false))
    }

    @Test("a committed configuration that has not streamed yet is fatal when refused")
    func restartMakesItFreshAgain() {
        var m = M(waitingForDevice: false, eioReopenThreshold: 5)
        _ = m.opened(path: "/dev/video0", summary: "s")
        m.restarted()
        #expect(m.link == .fresh)
        #expect(m.openFailed(.refused("no")).last == .fail("no"))
    }
}
