import Foundation

/// A worker's stock counts in Application Support, the worker's settings in the defaults, and
/// the product catalogue, which every shift shares, in Caches.
public final class InventoryStore {
    /// A mistake the app ships with (the broken variant of this example): nil for none.
    public enum Mistake {
        case forgetsApplicationSupport
    }

    public static var mistake: Mistake?

    var currentUser: String?
    var isBlocked = false
    private let fileManager = FileManager.default

    private var countsFolder: URL {
        fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0].appendingPathComponent("counts")
    }

    private var catalogue: URL {
        fileManager.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("catalogue.txt")
    }

    func save(_ text: String, kind: String, of user: String) throws {
        switch kind {
        case "common": try append(text, to: catalogue)
        case "preferences": UserDefaults.standard.set(text, forKey: "settings.\(user)")
        default: try append(text, to: countsFolder.appendingPathComponent("\(user).csv"))
        }
    }

    func counts() -> [String] {
        guard !isBlocked, let user = currentUser,
            let text = try? String(contentsOf: countsFolder.appendingPathComponent("\(user).csv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// The session ended: every worker's own data goes; the shared catalogue stays.
    func wipeUserData() {
        currentUser = nil
        if InventoryStore.mistake != .forgetsApplicationSupport {
            try? fileManager.removeItem(at: countsFolder)
        }
        for key in UserDefaults.standard.dictionaryRepresentation().keys where key.hasPrefix("settings.") {
            UserDefaults.standard.removeObject(forKey: key)
        }
    }

    private func append(_ line: String, to file: URL) throws {
        try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let existing = (try? Data(contentsOf: file)) ?? Data()
        try (existing + Data((line + "\n").utf8)).write(to: file, options: .atomic)
    }
}
