import Foundation

// A URL the user handed the app (a document picker's): on iOS, code brackets its reads with
// these. Here the app reads what it is handed as any file, so access is always granted.
extension URL {
    public func startAccessingSecurityScopedResource() -> Bool { true }
    public func stopAccessingSecurityScopedResource() {}
}
