import Foundation
import SharedDevice

/// An app's Info.plist, as the runner checks it (`info_plist:`) and the app's SDKs read it: the
/// file is handed to the app with `--info-plist` (Docs/your-app.md).
public enum InfoPlist {
    /// A file that is not an Info.plist MSAL could read, in words a team can act on.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The parts of the plist at `path` that MSAL reads.
    public static func read(_ path: String) throws(Problem) -> AppInfo {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read \(path)")
        }
        return try parse(data)
    }

    /// The parts of `data` (an XML or binary property list) that MSAL reads.
    public static func parse(_ data: Data) throws(Problem) -> AppInfo {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) else {
            throw Problem(description: "not a property list")
        }
        guard let root = plist as? [String: Any] else {
            throw Problem(description: "not a dictionary at the top, as an Info.plist is")
        }
        guard let bundle = root["CFBundleIdentifier"] as? String, !bundle.isEmpty else {
            throw Problem(description: "no CFBundleIdentifier (every app has one)")
        }
        let types = root["CFBundleURLTypes"] ?? [Any]()
        guard let urlTypes = types as? [[String: Any]] else {
            throw Problem(description: "CFBundleURLTypes is not an array of dictionaries")
        }
        var urlSchemes: [String] = []
        for type in urlTypes {
            guard let schemes = (type["CFBundleURLSchemes"] ?? [String]()) as? [String] else {
                throw Problem(description: "a CFBundleURLSchemes is not an array of strings")
            }
            urlSchemes += schemes
        }
        guard let queries = (root["LSApplicationQueriesSchemes"] ?? [String]()) as? [String] else {
            throw Problem(description: "LSApplicationQueriesSchemes is not an array of strings")
        }
        if let unexpanded = ([bundle] + urlSchemes).first(where: { $0.contains("$(") }) {
            throw Problem(
                description:
                    "\(unexpanded) names a build setting, which Xcode fills in as it builds: write its value (com.contoso.notes, msauth.com.contoso.notes)"
            )
        }
        return AppInfo(bundleIdentifier: bundle, urlSchemes: urlSchemes, querySchemes: queries)
    }
}
