import DeviceContract
import DeviceTestKit
import SDKClients
import SharedDevice
import TestSupport
import Testing

/// Each MSAL flavour hears its own platform's announcement of a change and not the other's: the
/// iOS broker's Darwin name, the Android broker's broadcast action (Docs/behaviour.md §2).
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct AnnouncementTests {
    @Test(arguments: [SDKKind.msal, .msalAndroid])
    func eachFlavourHearsItsOwnPlatformsAnnouncementOnly(sdk: SDKKind) async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let heard = try #require(sdk.announcement)
            let (posts, subscription) = try await device.posts(of: heard)
            defer { subscription.cancel() }
            let other = [NotifyCenter.accountChanged, AndroidBroker.accountChangedAction].first { $0 != heard }!
            let poster = try await device.connection()
            try poster.post(other)
            let announcement = try poster.post(heard)
            // One sender's posts arrive in order: had the other name reached the client, it
            // would have come first.
            #expect(try await next(posts, within: .seconds(10)).serial == announcement)
        }
    }
}
