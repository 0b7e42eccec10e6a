import Testing

@testable import SwiftUI

/// Views evaluated as SwiftUI evaluates them: state kept by place, `onAppear` once, `onChange`
/// with the old and new values after the update, the scene phase from the lifecycle, and the
/// objects of the environment.
@MainActor @Suite(.serialized) struct ViewGraphTests {
    final class Log {
        var lines: [String] = []
    }

    final class Account: ObservableObject {
        @Published var user: String? = "cou1"
    }

    struct Screen: View {
        let log: Log
        @Environment(\.scenePhase) var scenePhase
        @EnvironmentObject var account: Account
        @State private var checks = 0

        var body: some View {
            VStack {
                Text("Checks: \(checks)")
                if let user = account.user {
                    Text(user).onAppear { log.lines.append("shows \(user)") }
                } else {
                    Text("Signed out").onAppear { log.lines.append("signed out") }
                }
            }
            .onAppear { log.lines.append("appeared") }
            .onChange(of: scenePhase) { old, new in
                checks += 1
                log.lines.append("\(old) → \(new), check \(checks)")
            }
        }
    }

    func graph(_ log: Log, _ account: Account) -> ViewGraph {
        let graph = ViewGraph { graph in
            graph.walk(Screen(log: log).environmentObject(account), at: .root, in: graph.environment)
        }
        ViewGraph.current = graph
        return graph
    }

    @Test func effectsRunOnceAndStateIsKeptAcrossUpdates() {
        let (log, account) = (Log(), Account())
        let graph = graph(log, account)
        graph.update { $0.scenePhase = .inactive }
        #expect(log.lines == ["appeared", "shows cou1"], "the view, then what it holds")
        graph.update { $0.scenePhase = .active }
        graph.update { $0.scenePhase = .background }
        graph.update { $0.scenePhase = .background }
        #expect(log.lines.dropFirst(2) == ["inactive → active, check 1", "active → background, check 2"])
    }

    @Test func aBranchTakenAppearsAndTheOtherGoes() {
        let (log, account) = (Log(), Account())
        let graph = graph(log, account)
        graph.update()
        account.user = nil
        graph.update()
        account.user = "cou2"
        graph.update()
        #expect(log.lines == ["appeared", "shows cou1", "signed out", "shows cou2"])
    }
}
