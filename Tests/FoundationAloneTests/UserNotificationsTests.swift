import Foundation
import Testing
import UserNotifications

/// An app delegate's notification set-up as apps write it: it asks, is granted, and what it
/// schedules is kept and never shown.
@Suite(.serialized) struct UserNotificationsTests {
    final class Delegate: NSObject, UNUserNotificationCenterDelegate {}

    @Test func authorisationIsGrantedAndTheSettingsSaySo() async throws {
        let center = UNUserNotificationCenter.current()
        let delegate = Delegate()
        center.delegate = delegate
        #expect(center.delegate === delegate)
        let granted = await withCheckedContinuation { continuation in
            center.requestAuthorization(options: [.alert, .badge, .sound]) { granted, error in
                continuation.resume(returning: granted && error == nil)
            }
        }
        #expect(granted)
        #expect(try await center.requestAuthorization(options: [.alert]))
        #expect(await center.notificationSettings().authorizationStatus == .authorized)
    }

    @Test func scheduledNotificationsAreKeptUntilRemoved() async throws {
        let center = UNUserNotificationCenter.current()
        let content = UNMutableNotificationContent()
        content.title = "Shift ends"
        content.body = "Check the phone in"
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        try await center.add(UNNotificationRequest(identifier: "shift-end", content: content, trigger: trigger))
        #expect(await center.pendingNotificationRequests().map(\.content.title) == ["Shift ends"])
        center.removePendingNotificationRequests(withIdentifiers: ["shift-end"])
        #expect(await center.pendingNotificationRequests().isEmpty)
    }
}
