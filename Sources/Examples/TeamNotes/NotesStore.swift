import Foundation

/// Where the app keeps a worker's data: notes in Documents, a preview of each in Caches, the
/// worker's preferences in the user defaults, and confidential notes in the keychain.
final class NotesStore {
    var currentUser: String?
    private let fileManager = FileManager.default
    private let defaults = UserDefaults.standard
    private let keychain = KeychainHelper(service: "com.contoso.notes.confidential")

    private var notesFolder: URL {
        fileManager.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("notes")
    }

    private func previewsFolder(of user: String) -> URL {
        fileManager.urls(for: .cachesDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("previews").appendingPathComponent(user)
    }

    /// Saves a note: confidential ones in the keychain, preferences in the defaults, the rest
    /// in Documents with a preview in Caches.
    func save(_ text: String, kind: String, of user: String, id: String) throws {
        switch kind {
        case "sensitive":
            try keychain.set(Data(text.utf8), account: id, label: user)
        case "preferences":
            defaults.set(text, forKey: "prefs.\(user).\(id)")
        default:
            let file = notesFolder.appendingPathComponent("\(user).txt")
            try fileManager.createDirectory(at: notesFolder, withIntermediateDirectories: true)
            let existing = (try? Data(contentsOf: file)) ?? Data()
            try (existing + Data((text + "\n").utf8)).write(to: file, options: .atomic)
            let previews = previewsFolder(of: user)
            try fileManager.createDirectory(at: previews, withIntermediateDirectories: true)
            let preview = previews.appendingPathComponent(id.replacingOccurrences(of: "/", with: "_"))
            try Data(text.utf8).write(to: preview)
        }
    }

    /// The notes the app shows: the current worker's.
    func shownNotes() -> [String] {
        guard let user = currentUser,
            let text = try? String(contentsOf: notesFolder.appendingPathComponent("\(user).txt"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Removes everything of a worker who is gone.
    func removeEverything(of user: String) {
        try? fileManager.removeItem(at: notesFolder.appendingPathComponent("\(user).txt"))
        // To see the scenario fail, delete the next line: the previews stay in Caches.
        try? fileManager.removeItem(at: previewsFolder(of: user))
        for key in defaults.dictionaryRepresentation().keys where key.hasPrefix("prefs.\(user).") {
            defaults.removeObject(forKey: key)
        }
        keychain.removeAll(label: user)
    }
}
