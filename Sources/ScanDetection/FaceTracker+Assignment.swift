import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

extension FaceTracker {
    /// Minimum-cost assignment of candidates to tracks. Cost: centre distance in face sizes plus the
    /// log size ratio; pairs farther than 0.8 face sizes or more than 1.6× apart in size are not allowed.
    /// Exact (exhaustive) for up to 7 tracks, greedy by cost beyond. Returns candidate index per track.
    /// `allowed(track, candidate)` may forbid more pairs (``reacquires(_:_:)``).
    static func assign(
        tracks: [FaceCandidate], candidates: [FaceCandidate],
        allowed: (Int, Int) -> Bool = { _, _ in true }
    ) -> [Int?] {
        let n = tracks.count
        let m = candidates.count
        var cost = [[Double?]](repeating: [Double?](repeating: nil, count: m), count: n)
        for i in 0..<n {
            for j in 0..<m {
                let t = tracks[i]
                let c = candidates[j]
                let d = hypot(t.centerX - c.centerX, t.centerY - c.centerY) / max(t.size, 1)
                let r = abs(log(max(c.size, 1) / max(t.size, 1)))
                if d < 0.8 && r < log(1.6) && allowed(i, j) { cost[i][j] = d + r }
            }
        }
        var result = [Int?](repeating: nil, count: n)
        if n <= 7 {
            // Maximise the number of matches, then minimise the total cost.
            var best: (matches: Int, cost: Double, pick: [Int?])?
            var pick = [Int?](repeating: nil, count: n)
            var used = [Bool](repeating: false, count: m)
            func search(_ i: Int, _ matches: Int, _ total: Double) {
                if i == n {
                    if best == nil || matches > best!.matches || (matches == best!.matches && total < best!.cost) {
                        best = (matches, total, pick)
                    }
                    return
                }
                pick[i] = nil
                search(i + 1, matches, total)
                for j in 0..<m where !used[j] {
                    guard let c = cost[i][j] else { continue }
                    used[j] = true
                    pick[i] = j
                    search(i + 1, matches + 1, total + c)
                    used[j] = false
                    pick[i] = nil
                }
            }
            search(0, 0, 0)
            result = best?.pick ?? result
        } else {
            var pairs: [(Double, Int, Int)] = []
            for i in 0..<n { for j in 0..<m { if let c = cost[i][j] { pairs.append((c, i, j)) } } }
            pairs.sort { $0.0 < $1.0 }
            var usedC = Set<Int>()
            for (_, i, j) in pairs where result[i] == nil && !usedC.contains(j) {
                result[i] = j
                usedC.insert(j)
            }
        }
        return result
    }
}
