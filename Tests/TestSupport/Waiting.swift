/// Bounded waits: every test wait ends, with an error that says what did not happen.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "timed out: \(what)" }
}

public struct StreamEnded: Error {
    public init() {}
}

/// Runs `body`, or throws `TimedOut` once `limit` has passed (cancelling `body`).
public func withTimeout<T: Sendable>(
    _ limit: Duration = .seconds(10), _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// The next element of `stream`, waiting at most `limit`. Throws when the stream ends.
public func next<E: Sendable>(_ stream: AsyncStream<E>, within limit: Duration = .seconds(10)) async throws -> E {
    try await withTimeout(limit, "the next element of a stream") {
        for await element in stream { return element }
        throw StreamEnded()
    }
}

/// Bounded polling, only for states that announce themselves with no event (a match rule
/// removed from the daemon, a process gone).
public func eventually(
    within limit: Duration = .seconds(10), _ what: String, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(20))
    }
}
