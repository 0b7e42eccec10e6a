import Foundation
import Testing

/// `String(localized:)` as app code writes its labels: without a translation, the text itself.
@Suite struct LocalizedStringTests {
    @Test func aLabelWithoutATranslationIsItsOwnText() {
        let count = 3
        #expect(String(localized: "Sign out") == "Sign out")
        #expect(String(localized: "\(count) notes") == "3 notes")
        #expect(String(localized: "signout.title", defaultValue: "Sign out") == "Sign out")
    }
}
