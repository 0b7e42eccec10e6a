import Dispatch
import Testing

@Test func mainQueueRuns() async throws {
    await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
}
