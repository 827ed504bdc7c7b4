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

    /// What the workers and the writer share.
    final class Board: @unchecked Sendable {
        // Invariant for @unchecked Sendable: every stored property is read and written only under `monitor`.
        let monitor = Monitor()
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

    /// The sink a worker scans one input into: its slot on the board.
    final class SlotSink: EventSink, @unchecked Sendable {
        // Invariant for @unchecked Sendable: `board` is itself safe; `index` is immutable.
        let board: Board
        let index: Int
        init(board: Board, index: Int) {
            self.board = board
            self.index = index
        }

        /// True once the writer stopped (its output failed): the worker ends the input early.
        var isStopped: Bool { board.monitor.withLock { board.stopped } }

        func deliver(_ event: EncodedEvent) {
            board.monitor.withLock {
                while !board.stopped && board.head != index
                    && board.slots[index].bufferedBytes >= board.bufferedBytesPerInput
                {
                    board.monitor.wait()
                }
                if board.stopped { return }
                board.slots[index].lines.append(event.line)
                board.slots[index].bufferedBytes += event.line.count
                board.monitor.broadcast()
            }
        }

        func finish() {}
    }

    /// A worker's own scanner. Invariant for @unchecked Sendable: handed to exactly one worker thread, which
    /// alone uses it (and its ``MetadataOutput``) from then on.
    final class WorkerScanner: @unchecked Sendable {
        let scanner: FileScanner
        init(_ scanner: FileScanner) { self.scanner = scanner }
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
        var scanners: [ParallelScan.WorkerScanner] = []
        for w in 0..<workers {
            var s = self
            if w > 0 { s.output = try makeOutput() }
            s.onFrame = nil
            scanners.append(ParallelScan.WorkerScanner(s))
        }
        let board = ParallelScan.Board(
            inputs: inputs.count, workers: workers, bufferedBytesPerInput: bufferedBytesPerInput)
        let threads = scanners.map { worker in
            WorkerThread(name: "scand-scan") {
                while true {
                    let index: Int? = board.monitor.withLock {
                        guard !board.stopped, board.nextToTake < inputs.count else { return nil }
                        defer { board.nextToTake += 1 }
                        return board.nextToTake
                    }
                    guard let index else { break }
                    var summary = ScanSummary()
                    worker.scanner.scan(
                        input: inputs[index], sink: ParallelScan.SlotSink(board: board, index: index), summary: &summary
                    )
                    board.monitor.withLock {
                        board.slots[index].summary = summary
                        board.slots[index].done = true
                        board.monitor.broadcast()
                    }
                }
                board.monitor.withLock {
                    board.workersLeft -= 1
                    board.monitor.broadcast()
                }
            }
        }
        var total = ScanSummary()
        inputs: for index in inputs.indices {
            while true {
                let (lines, done): ([[UInt8]], Bool) = board.monitor.withLock {
                    board.head = index
                    board.monitor.broadcast()
                    while board.slots[index].lines.isEmpty && !board.slots[index].done { board.monitor.wait() }
                    defer {
                        board.slots[index].lines = []
                        board.slots[index].bufferedBytes = 0
                        board.monitor.broadcast()
                    }
                    return (board.slots[index].lines, board.slots[index].done)
                }
                for line in lines where !sink.write(line) { break }
                if sink.hasFailed { break inputs }
                if done { break }
            }
            total.add(board.monitor.withLock { board.slots[index].summary })
        }
        board.monitor.withLock {
            board.stopped = true
            board.monitor.broadcast()
            while board.workersLeft > 0 { board.monitor.wait() }
        }
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
