import Foundation
import ScanCore
import Testing

/// The primitives every sink and hand-off is built on: ``DropOldestQueue`` (the one bounded drop-oldest queue)
/// and ``Locked`` (the one home of shared mutable state).
@Suite struct PrimitivesTests {
    @Test("a full queue drops its oldest item, counts it, and gives the rest back in order")
    func dropOldest() {
        var q = DropOldestQueue<Int>(capacity: 3)
        var dropped = 0
        for i in 0..<10 { dropped += q.append(i) }
        #expect(dropped == 7)
        #expect(q.count == 3 && q.isFull)
        #expect(q.overflow == 7 && q.totalDropped == 7)
        #expect(q.takeOverflow() == 7)
        #expect(q.overflow == 0 && q.totalDropped == 7, "taking the overflow keeps the total")
        #expect(q.popFirst() == 7)
        #expect(q.removeAll() == [8, 9])
        #expect(q.isEmpty && q.popFirst() == nil)
        q.append(10)
        #expect(q.removeAll() == [10] && q.overflow == 0)
    }

    @Test("taking items one by one over many appends keeps order and count (the array compacts)")
    func longRun() {
        var q = DropOldestQueue<Int>(capacity: 5)
        var taken: [Int] = []
        for i in 0..<10_000 {
            q.append(i)
            if i % 2 == 1, let x = q.popFirst() { taken.append(x) }
        }
        taken += q.removeAll()
        #expect(q.totalDropped == 10_000 - taken.count)
        #expect(taken == taken.sorted(), "items come out in the order they went in")
        #expect(taken.last == 9_999)
    }

    @Test("Locked: concurrent increments are none lost; a waiter wakes on the change it waits for")
    func locked() async {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)

        let flag = Locked(false)
        let started = MonotonicInstant.now
        let waiter = WorkerThread(name: "test-waiter") {
            let ready: (Bool) -> Bool = { $0 }
            flag.withLock(waitingUntil: ready) { state in state = false }
        }
        usleep(50_000)
        flag.withLock { $0 = true }
        flag.broadcast()
        #expect(waiter.join(timeout: .seconds(5)), "the waiter woke on the change")
        #expect(flag.withLock { $0 } == false, "the waiter's body ran with the lock held, after the change")
        #expect(started.elapsed.inSeconds < 5)

        // A deadline ends the wait with the condition still false; the body sees the state and decides.
        let t0 = MonotonicInstant.now
        let ready: (Bool) -> Bool = { $0 }
        let sawReady = flag.withLock(waitingUntil: ready, deadline: t0.advanced(by: .seconds(0.1))) { $0 }
        #expect(!sawReady)
        #expect(t0.elapsed.inSeconds >= 0.09)
    }

    @Test("MonotonicInstant is CLOCK_MONOTONIC in nanoseconds; intervals are Durations; far deadlines saturate")
    func monotonicInstant() {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let raw = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        let now = MonotonicInstant.now
        #expect(now.nanoseconds >= raw && now.nanoseconds - raw < 1_000_000_000, "the same clock as clock_gettime's")
        // A V4L2 buffer's timeval (CLOCK_MONOTONIC) is an instant of the same clock.
        let buffer = MonotonicInstant(seconds: 12, microseconds: 345_678)
        #expect(buffer.nanoseconds == 12_345_678_000)
        #expect(buffer.advanced(by: .milliseconds(1)).nanoseconds == 12_346_678_000)
        #expect(buffer.duration(to: buffer.advanced(by: .seconds(2.5))) == .milliseconds(2500))
        #expect(buffer < buffer.advanced(by: .nanoseconds(1)) && buffer.advanced(by: .seconds(-1)) < buffer)
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        // `scand watch -x 1e15`: a deadline past the clock's range is "never", not an overflow trap.
        let never = now.advanced(by: .seconds(1e15))
        #expect(never.nanoseconds == .max && now < never)
        #expect(Duration.seconds(1e15).nanoseconds == .max && Duration.seconds(-1e15).nanoseconds == .min)
        usleep(20_000)
        #expect(now.elapsed >= .milliseconds(19) && now.elapsed < .seconds(10))
    }
}
