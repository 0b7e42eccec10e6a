import Testing

@testable import SwiftUI

/// UIKit inside SwiftUI as iOS runs it: a representable's coordinator and controller are made
/// once, when it first appears, and updated at every evaluation; a controller's view loads when
/// first asked for, and presenting records what is presented.
@MainActor @Suite(.serialized) struct RepresentableTests {
    final class Log {
        var lines: [String] = []
    }

    /// A sign-in page's host, as MSAL SwiftUI apps write one to hand MSAL a view controller.
    struct SignInHost: UIViewControllerRepresentable {
        let log: Log
        let user: String

        final class Coordinator {
            var updates = 0
        }

        func makeCoordinator() -> Coordinator {
            log.lines.append("coordinator")
            return Coordinator()
        }

        func makeUIViewController(context: Context) -> UIViewController {
            log.lines.append("made")
            return UIViewController()
        }

        func updateUIViewController(_ controller: UIViewController, context: Context) {
            context.coordinator.updates += 1
            log.lines.append("update \(context.coordinator.updates) for \(user)")
        }
    }

    final class Session: ObservableObject {
        @Published var user = "cou1"
    }

    struct Screen: View {
        let log: Log
        @ObservedObject var session: Session

        var body: some View {
            VStack {
                Text(session.user).foregroundColor(Color(uiColor: .secondaryLabel))
                SignInHost(log: log, user: session.user)
            }
        }
    }

    @Test func aRepresentableIsMadeOnceAndUpdatedAtEachEvaluation() {
        let (log, session) = (Log(), Session())
        let graph = ViewGraph { graph in
            graph.walk(Screen(log: log, session: session), at: .root, in: graph.environment)
        }
        ViewGraph.current = graph
        graph.update()
        session.user = "cou2"
        graph.update()
        #expect(log.lines == ["coordinator", "made", "update 1 for cou1", "update 2 for cou2"])
    }

    final class Controller: UIViewController {
        var loads = 0
        override func viewDidLoad() { loads += 1 }
    }

    @Test func aControllerLoadsItsViewOnceAndPresentsWithoutShowing() {
        let controller = Controller()
        #expect(!controller.isViewLoaded)
        controller.view.backgroundColor = .systemBackground
        _ = controller.view
        #expect(controller.loads == 1)
        #expect(controller.view.backgroundColor == .systemBackground)

        let alert = UIAlertController(title: "Sign out?", message: nil, preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: "Sign out", style: .destructive) { _ in Issue.record("no one taps") })
        var completed = false
        controller.present(alert, animated: true) { completed = true }
        #expect(completed && controller.presentedViewController === alert)
        #expect(alert.presentingViewController === controller)
        alert.dismiss(animated: true)
        #expect(controller.presentedViewController == nil)

        let navigation = UINavigationController(rootViewController: controller)
        navigation.pushViewController(UIViewController(), animated: true)
        #expect(navigation.viewControllers.count == 2)
        navigation.popViewController(animated: true)
        #expect(navigation.topViewController === controller && navigation.popViewController(animated: true) == nil)
    }
}
