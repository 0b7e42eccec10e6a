import Foundation
import Security

/// Where the notes app keeps a worker's data: notes in Documents, a preview of each in
/// Caches, the worker's preferences in the user defaults, and confidential notes in the
/// keychain.
public final class NotesStore {
    /// A mistake the app ships with (the broken variants of this example): nil for none.
    public enum Mistake {
        case forgetsCaches, forgetsKeychain, forgetsDefaults
        /// Also exports each note to a shared folder outside the app's container.
        case exportsOutsideTheContainer
    }

    public static var mistake: Mistake?

    var currentUser: String?
    private let fileManager = FileManager.default
    private let defaults = UserDefaults.standard
    private static let keychainService = "com.contoso.notes.confidential"

    private var notesFolder: URL {
        fileManager.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("notes")
    }

    private var previewsFolder: URL {
        fileManager.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("previews")
    }

    /// Saves a note: confidential ones in the keychain, preferences in the defaults, the rest
    /// in Documents with a preview in Caches.
    func save(note: String, kind: String, of user: String, id: String) throws {
        print("saving a \(kind) note")
        switch kind {
        case "sensitive": try saveInKeychain(note, of: user, id: id)
        case "preferences": defaults.set(note, forKey: "prefs.\(user).\(id)")
        default:
            try append(note, to: notesFolder.appendingPathComponent("\(user).txt"))
            try fileManager.createDirectory(at: previewsFolder, withIntermediateDirectories: true)
            let preview = previewsFolder.appendingPathComponent(
                "\(user)-\(id.replacingOccurrences(of: "/", with: "_"))")
            try Data(note.utf8).write(to: preview)
            if NotesStore.mistake == .exportsOutsideTheContainer {
                try? Data(note.utf8).write(to: URL(fileURLWithPath: "/tmp/contoso-notes-export.txt"))
            }
        }
    }

    /// The notes the app shows: the current worker's.
    func notes() -> [String] {
        guard let user = currentUser,
            let text = try? String(contentsOf: notesFolder.appendingPathComponent("\(user).txt"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Removes everything of a worker who is gone.
    func removeEverything(of user: String) {
        try? fileManager.removeItem(at: notesFolder.appendingPathComponent("\(user).txt"))
        if NotesStore.mistake != .forgetsCaches,
            let previews = try? fileManager.contentsOfDirectory(atPath: previewsFolder.path)
        {
            for preview in previews where preview.hasPrefix("\(user)-") {
                try? fileManager.removeItem(at: previewsFolder.appendingPathComponent(preview))
            }
        }
        if NotesStore.mistake != .forgetsDefaults, let domain = Bundle.main.bundleIdentifier {
            // The app's whole defaults domain is the worker's, removed as public helpers do.
            defaults.removePersistentDomain(forName: domain)
        }
        if NotesStore.mistake != .forgetsKeychain {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: NotesStore.keychainService,
                kSecAttrLabel as String: user,
            ]
            SecItemDelete(query as CFDictionary)
        }
    }

    private func saveInKeychain(_ note: String, of user: String, id: String) throws {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: NotesStore.keychainService,
            kSecAttrAccount as String: id,
            kSecAttrLabel as String: user,
            kSecValueData as String: Data(note.utf8),
        ]
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(status))
        }
    }

    private func append(_ line: String, to file: URL) throws {
        try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let existing = (try? Data(contentsOf: file)) ?? Data()
        try (existing + Data((line + "\n").utf8)).write(to: file, options: .atomic)
    }
}
