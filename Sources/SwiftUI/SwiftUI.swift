// SwiftUI as a shared-device app uses it (Docs/your-app.md): the app lifecycle the host drives
// (`App`, `WindowGroup`, the scene phase), the property wrappers and their updates, and views
// that compile as written and render nothing. Views are evaluated as SwiftUI evaluates them, so
// the code they run (`onAppear`, `task`, `onChange`, `onReceive`) runs when it would on iOS.
// On iOS `import SwiftUI` also brings UIKit, Combine and Observation.
@_exported import Combine
@_exported import Observation
@_exported import UIKit
