import Foundation
import MSAL

/// Hears MSAL's shared-device account-change notification, a Darwin notification the broker
/// posts on every global sign-out. It carries nothing: the app asks MSAL what changed.
final class AccountChangeWatcher {
    private let onChange: () -> Void

    init(onChange: @escaping () -> Void) {
        self.onChange = onChange
        let observer = Unmanaged.passUnretained(self).toOpaque()
        CFNotificationCenterAddObserver(
            CFNotificationCenterGetDarwinNotifyCenter(), observer,
            { _, observer, _, _, _ in
                guard let observer = observer else { return }
                Unmanaged<AccountChangeWatcher>.fromOpaque(observer).takeUnretainedValue().onChange()
            }, "SHARED_MODE_CURRENT_ACCOUNT_CHANGED" as CFString, nil, .deliverImmediately)
    }

    deinit {
        CFNotificationCenterRemoveEveryObserver(
            CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque())
    }
}
