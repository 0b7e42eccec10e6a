import Foundation
import TestSupport
import Testing

/// The AppDelegateAdaptors plugin's tool: for each type a target gives
/// `@UIApplicationDelegateAdaptor`, the initializers that make it; nothing for a type named only
/// in a comment. (That the written initializers compile and make an NSObject-based delegate is
/// checked by building and running ExampleTeamSwiftUINotes, whose delegate derives from NSObject.)
struct AppDelegateAdaptorsTests {
    static let tool = URL(fileURLWithPath: sdlabPath).deletingLastPathComponent().appendingPathComponent(
        "sdlab-adaptors"
    ).path

    @Test func writesAnInitializerForEachDelegateType() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sdlab-adaptors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = folder.appendingPathComponent("App.swift")
        try Data(
            """
            @main struct ShiftApp: App {
                @UIApplicationDelegateAdaptor(AppDelegate.self) var appDelegate
                // @UIApplicationDelegateAdaptor(OldDelegate.self) var old
                @UIApplicationDelegateAdaptor private var other: Delegates.Other
            }
            """.utf8
        ).write(to: app)
        let output = folder.appendingPathComponent("AppDelegateAdaptors.swift")
        let result = try await run(Self.tool, [output.path, app.path])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("import SwiftUI"))
        #expect(text.contains("extension UIApplicationDelegateAdaptor where DelegateType == AppDelegate {"))
        #expect(text.contains("init(_ delegateType: AppDelegate.Type) { self.init(makingWith: { AppDelegate() }) }"))
        #expect(text.contains("extension UIApplicationDelegateAdaptor where DelegateType == Delegates.Other {"))
        #expect(!text.contains("OldDelegate"))
    }

    @Test func aTargetWithoutAdaptorsGetsAFileWithNoCode() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sdlab-adaptors-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await run(Self.tool, [output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(!text.contains("import") && !text.contains("extension"))
    }

    @Test func anUnreadableSourceIsAnError() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sdlab-adaptors-\(UUID().uuidString).swift")
        let result = try await run(Self.tool, [output.path, "/nonexistent/App.swift"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot read /nonexistent/App.swift"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
