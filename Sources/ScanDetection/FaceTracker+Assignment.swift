import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

extension FaceTracker {
    /// ``assign(tracks:candidates:allowed:)`` by recency: the tracks seen on the last frame (`misses` 0) take
    /// their candidates first, then the missed tracks, fewest misses first, share what is left. A face that
    /// is in view keeps its detection when a face that was hidden behind it comes out (otherwise "most matches"
    /// can hand the front face to the hidden one's track and the hidden one to the front's: IDs swap).
    static func assignByRecency(
        tracks: [FaceCandidate], misses: [Int], candidates: [FaceCandidate],
        allowed: (Int, Int) -> Bool = { _, _ in true }
    ) -> [Int?] {
        var result = [Int?](repeating: nil, count: tracks.count)
        var free = Array(candidates.indices)
        for level in Set(misses).sorted() {
            let group = tracks.indices.filter { misses[$0] == level }
            guard !group.isEmpty, !free.isEmpty else { continue }
            let picks = assign(tracks: group.map { tracks[$0] }, candidates: free.map { candidates[$0] }) {
                allowed(group[$0], free[$1])
            }
            var taken = Set<Int>()
            for (k, pick) in picks.enumerated() {
                guard let j = pick else { continue }
                result[group[k]] = free[j]
                taken.insert(free[j])
            }
            free.removeAll { taken.contains($0) }
        }
        return result
    }

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

    /// Detections a track remembers for its steady velocity (``Track/recent``).
    static let recentCount = 10

    /// A missed track coasts. Behind another face (its predicted centre within 0.8 face sizes of a face seen on
    /// this frame, `front`, or already hidden) it keeps moving at its steady velocity, the mean over its recent
    /// detections (the per-frame estimate jitters by half a pixel a frame and more), so it is looked for where
    /// it comes out; otherwise its motion fades, so a face that vanished is looked for near where it was.
    static func coast(_ t: inout Track, behind front: [FaceCandidate]) {
        let covered = front.contains {
            hypot($0.centerX - t.face.centerX, $0.centerY - t.face.centerY) < 0.8 * max($0.size, t.face.size)
        }
        if covered && !t.hidden, let first = t.recent.first, let last = t.recent.last, last.frame > first.frame {
            let span = Double(last.frame - first.frame)
            t.vx = (last.x - first.x) / span
            t.vy = (last.y - first.y) / span
        }
        if covered || t.hidden {
            t.hidden = true
            t.vs = 0
        } else {
            t.vx *= 0.85
            t.vy *= 0.85
            t.vs *= 0.5
        }
    }

    /// Whether candidate `c` may continue track `t`: always while the face is seen; after a miss only near
    /// where it was last detected (0.5 face sizes, plus 0.02 per missed frame, at most 0.8), so a face that
    /// vanishes and is found again far away starts a new track (new faceID) even if the coasting prediction
    /// drifted toward it, while a short miss in place keeps the ID. A face hidden behind another
    /// (``Track/hidden``) is also looked for as far from its predicted centre, on the path it was moving along.
    static func reacquires(_ t: Track, _ c: FaceCandidate) -> Bool {
        guard t.misses > 0 else { return true }
        let reach = min(0.8, 0.5 + 0.02 * Double(t.misses)) * max(t.face.size, 1)
        if t.hidden && hypot(c.centerX - t.face.centerX, c.centerY - t.face.centerY) <= reach { return true }
        return hypot(c.centerX - t.seenX, c.centerY - t.seenY) <= reach
    }
}
