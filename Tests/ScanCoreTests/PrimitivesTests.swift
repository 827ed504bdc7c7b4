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
        let started = monotonicSeconds()
        let waiter = WorkerThread(name: "test-waiter") {
            let ready: (Bool) -> Bool = { $0 }
            flag.withLock(waitingUntil: ready) { state in state = false }
        }
        usleep(50_000)
        flag.withLock { $0 = true }
        flag.broadcast()
        #expect(waiter.join(timeout: 5), "the waiter woke on the change")
        #expect(flag.withLock { $0 } == false, "the waiter's body ran with the lock held, after the change")
        #expect(monotonicSeconds() - started < 5)

        // A deadline ends the wait with the condition still false; the body sees the state and decides.
        let t0 = monotonicSeconds()
        let ready: (Bool) -> Bool = { $0 }
        let sawReady = flag.withLock(waitingUntil: ready, deadline: t0 + 0.1) { $0 }
        #expect(!sawReady)
        #expect(monotonicSeconds() - t0 >= 0.09)
    }
}
