import ScanCapture
public import ScanCore
public import ScanOutput

/// `scand scan --jobs N`: several inputs scanned at once, their lines written in input order.
///
/// Each worker thread takes the next input not yet taken and scans it with detectors of its own (a
/// ``MetadataOutput`` is used by one thread only). The writing thread (the caller's) writes the lines of the
/// input at the head of the order as they come, so a long video or a Y4M pipe at the head streams as it does
/// with one job; the lines of later inputs wait in memory until their turn, at most
/// ``ParallelScan/defaultBufferedBytesPerInput`` each (past that their worker waits). An input's error line is
/// logged by its worker when it fails, so stderr's order may differ from stdout's.
public enum ParallelScan {
    /// The most bytes of lines held for an input that is not yet at the head before its worker waits.
    public static let defaultBufferedBytesPerInput = 8 << 20

    /// The results of one input, filled by its worker and drained by the writer.
    struct Slot {
        var lines: [[UInt8]] = []
        var bufferedBytes = 0
        var done = false
        var summary = ScanSummary()
    }

    /// What the workers and the writer share (in a ``Locked``: ``Board``).
    struct BoardState: Sendable {
        var slots: [Slot]
        var nextToTake = 0
        var head = 0
        var stopped = false
        var workersLeft: Int
        let bufferedBytesPerInput: Int

        init(inputs: Int, workers: Int, bufferedBytesPerInput: Int) {
            slots = Array(repeating: Slot(), count: inputs)
            workersLeft = workers
            self.bufferedBytesPerInput = bufferedBytesPerInput
        }
    }
    typealias Board = Locked<BoardState>

    /// The sink a worker scans one input into: its slot on the board.
    final class SlotSink: EventSink, Sendable {
        let board: Board
        let index: Int
        init(board: Board, index: Int) {
            self.board = board
            self.index = index
        }

        /// True once the writer stopped (its output failed): the worker ends the input early.
        var isStopped: Bool { board.withLock { $0.stopped } }

        func deliver(_ event: EncodedEvent) {
            let index = self.index
            let hasRoom: (ParallelScan.BoardState) -> Bool = {
                $0.stopped || $0.head == index || $0.slots[index].bufferedBytes < $0.bufferedBytesPerInput
            }
            board.withLock(waitingUntil: hasRoom) { board in
                if board.stopped { return }
                board.slots[index].lines.append(event.line)
                board.slots[index].bufferedBytes += event.line.count
            }
            board.broadcast()
        }

        func finish() {}
    }
}

extension FileScanner {
    /// ``scan(inputs:sink:)`` with up to `jobs` inputs scanned at once: the same lines in the same order, the
    /// same summary. The first worker uses ``output``; `makeOutput` makes the detectors of each other worker
    /// (called here, before any worker starts). With `jobs` 1 or one input it is ``scan(inputs:sink:)``.
    /// Not for ``oneshot`` or a ``frameObserver`` (the caller refuses those with more than one job), and
    /// ``onFrame`` is not called (several inputs run at once).
    /// `bufferedBytesPerInput`: see ``ParallelScan`` (tests make it small to make workers wait).
    /// - Throws: what `makeOutput` throws.
    public func scan(
        inputs: [InputPath], sink: FileDescriptorSink, jobs: Int,
        bufferedBytesPerInput: Int = ParallelScan.defaultBufferedBytesPerInput,
        makeOutput: () throws -> MetadataOutput
    ) throws -> ScanSummary {
        let workers = min(max(1, jobs), inputs.count)
        guard workers > 1 else { return scan(inputs: inputs, sink: sink) }
        precondition(!oneshot && frameObserver == nil, "--jobs is not for --oneshot or --annotate")
        // Each worker's own scanner, handed to its thread, which alone uses it (and its MetadataOutput: the first
        // worker's is this scanner's, which this function does not touch again).
        var scanners: [HandOver<FileScanner>] = []
        for w in 0..<workers {
            var s = self
            if w > 0 { s.output = try makeOutput() }
            s.onFrame = nil
            scanners.append(HandOver(promisingUnusedByCaller: s))
        }
        let board = ParallelScan.Board(
            ParallelScan.BoardState(
                inputs: inputs.count, workers: workers, bufferedBytesPerInput: bufferedBytesPerInput))
        let threads = scanners.map { worker in
            WorkerThread(name: "scand-scan") {
                while true {
                    let index: Int? = board.withLock { board in
                        guard !board.stopped, board.nextToTake < inputs.count else { return nil }
                        defer { board.nextToTake += 1 }
                        return board.nextToTake
                    }
                    guard let index else { break }
                    var summary = ScanSummary()
                    worker.value.scan(
                        input: inputs[index], sink: ParallelScan.SlotSink(board: board, index: index), summary: &summary
                    )
                    board.withLock {
                        $0.slots[index].summary = summary
                        $0.slots[index].done = true
                    }
                    board.broadcast()
                }
                board.withLock { $0.workersLeft -= 1 }
                board.broadcast()
            }
        }
        var total = ScanSummary()
        inputs: for index in inputs.indices {
            while true {
                board.withLock { $0.head = index }
                board.broadcast()
                let hasLines: (ParallelScan.BoardState) -> Bool = {
                    !$0.slots[index].lines.isEmpty || $0.slots[index].done
                }
                let (lines, done): ([[UInt8]], Bool) = board.withLock(waitingUntil: hasLines) { board in
                    defer {
                        board.slots[index].lines = []
                        board.slots[index].bufferedBytes = 0
                    }
                    return (board.slots[index].lines, board.slots[index].done)
                }
                board.broadcast()
                for line in lines where !sink.write(line) { break }
                if sink.hasFailed { break inputs }
                if done { break }
            }
            total.add(board.withLock { $0.slots[index].summary })
        }
        board.withLock { $0.stopped = true }
        board.broadcast()
        let workersEnded: (ParallelScan.BoardState) -> Bool = { $0.workersLeft == 0 }
        board.withLock(waitingUntil: workersEnded) { _ in }
        for thread in threads { thread.join() }
        switch sink.failure {
        case .readerGone?: total.outputClosed = true
        case .writeFailed?: total.outputError = sink.failure?.description
        case nil: break
        }
        return total
    }
}

extension ScanSummary {
    /// Adds one input's counts and lists (a worker's summary of the input it scanned) to this run's.
    mutating func add(_ s: ScanSummary) {
        inputs += s.inputs
        frames += s.frames
        objects += s.objects
        skippedBinary += s.skippedBinary
        printedValues += s.printedValues
        failedInputs += s.failedInputs
        inputsWithoutObjects += s.inputsWithoutObjects
    }
}
