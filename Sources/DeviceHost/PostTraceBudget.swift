/// How many `post-received` lines an app writes. Any bus client may post without end, and
/// each post would be a line in every listening app's trace (165 MB in 25 s for 5 apps). A
/// bucket of `burst` lines, refilled at `perSecond` a second: posts past it are
/// counted, and the count is told in one `posts-untraced` line once lines are allowed again
/// (or at the end of the next check). Every post is still heard and acted on.
struct PostTraceBudget: Equatable, Sendable {
    /// 0: every post is traced.
    let perSecond: Int
    let burst: Int
    private var tokens: Double
    private var last: UInt64
    /// Posts heard and not traced since the last `posts-untraced` line.
    private(set) var untraced = 0

    init(perSecond: Int, burst: Int, now: UInt64 = 0) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = Double(burst)
        last = now
    }

    /// A post heard at `now` (ns): whether to trace it, and the untraced posts to tell first.
    mutating func admit(at now: UInt64) -> (traced: Bool, untracedBefore: Int) {
        guard perSecond > 0 else { return (true, 0) }
        let elapsed = Double(now &- min(now, last)) / 1e9
        tokens = min(Double(burst), tokens + elapsed * Double(perSecond))
        last = max(last, now)
        guard tokens >= 1 else {
            untraced += 1
            return (false, 0)
        }
        tokens -= 1
        return (true, takeUntraced())
    }

    /// The untraced count, to tell now; it starts again from 0.
    mutating func takeUntraced() -> Int {
        defer { untraced = 0 }
        return untraced
    }
}
