import DeviceProcesses
import Dispatch
import Glibc
import Synchronization
import Testing

/// The thread the host's confirming scans run on: work handed to it runs at nice 10, on a
/// thread other than the caller's, whose own priority stays as it was.
@Suite struct LowPriorityThreadTests {
    private static func nice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func runsWorkAtTheLowestPriorityOnAThreadOfItsOwn() {
        let callerNice = Self.nice()
        let caller = pthread_self()
        let thread = LowPriorityThread()
        let (nice, ranOn) = thread.run { (Self.nice(), pthread_self()) }
        #expect(nice == LowPriorityThread.nice && nice == 10)
        #expect(ranOn != caller)
        #expect(Self.nice() == callerNice)
    }

    @Test func handsEachCallerItsOwnResultWhenManyWait() {
        let thread = LowPriorityThread()
        let results = Mutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let squared = thread.run { index * index }
            results.withLock { $0[index] = squared }
        }
        #expect(results.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<16).map { ($0, $0 * $0) }))
    }
}
