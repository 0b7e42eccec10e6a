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

    final class Tabs: ObservableObject {
        @Published var selected = "notes"
    }

    /// Two tabs, each checking something as it appears: only the selected one is evaluated, as on
    /// iOS, so a check in a tab no one opened never runs.
    struct TabbedScreen: View {
        let log: Log
        @ObservedObject var tabs: Tabs

        var body: some View {
            TabView(selection: $tabs.selected) {
                Text("Notes").onAppear { log.lines.append("notes appeared") }
                    .tabItem { Text("Notes") }.tag("notes")
                Text("Settings").tag("settings").onAppear { log.lines.append("settings appeared") }
                    .onDisappear { log.lines.append("settings went") }
            }
        }
    }

    @Test func onlyTheSelectedTabIsEvaluated() {
        let (log, tabs) = (Log(), Tabs())
        let graph = ViewGraph { graph in
            graph.walk(TabbedScreen(log: log, tabs: tabs), at: .root, in: graph.environment)
        }
        ViewGraph.current = graph
        graph.update()
        #expect(log.lines == ["notes appeared"])
        tabs.selected = "settings"
        graph.update()
        tabs.selected = "notes"
        graph.update()
        #expect(log.lines == ["notes appeared", "settings appeared", "settings went", "notes appeared"])
    }
}
