import Foundation

// `String(localized:)`, which Foundation has on iOS 15 and later and Linux's lacks: app code
// spells its user-visible strings with it (the Workspace ONE SwiftUI sample, 117 times).

extension String {
    /// A localizable string as a literal writes it; an interpolation is kept as interpolated.
    public struct LocalizationValue: ExpressibleByStringInterpolation, Equatable, Sendable {
        public let key: String

        public init(_ value: String) { key = value }
        public init(stringLiteral value: String) { key = value }
        public init(stringInterpolation: DefaultStringInterpolation) {
            key = String(stringInterpolation: stringInterpolation)
        }
    }

    /// The string `Localizable.strings` (or `table`) of `bundle` gives for `key`; the key
    /// itself where there is none, as on iOS without a translation.
    public init(
        localized key: LocalizationValue, table: String? = nil, bundle: Bundle? = nil, locale: Locale = .current,
        comment: StaticString? = nil
    ) {
        self = (bundle ?? .main).localizedString(forKey: key.key, value: nil, table: table)
    }

    /// `defaultValue` where `bundle` has no string for `keyAndValue`.
    public init(
        localized keyAndValue: StaticString, defaultValue: LocalizationValue, table: String? = nil,
        bundle: Bundle? = nil, locale: Locale = .current, comment: StaticString? = nil
    ) {
        self = (bundle ?? .main).localizedString(forKey: "\(keyAndValue)", value: defaultValue.key, table: table)
    }
}
