import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// Mail read as GMime reads it: the structure splits and re-encodes the canaries, so that none
/// is in the message's bytes as it is.
@Suite(.ownThread) struct MIMEMessageTests {
    /// Every MIME layer at once, written by hand: an RFC 2047 subject, quoted-printable
    /// latin-1 with a soft line break inside the canary, base64 HTML in an alternative, a UTF-16
    /// attachment in base64 whose file name is encoded too, and a message attached as
    /// message/rfc822 with its own encoded subject and base64 body.
    @Test func everyLayerOfAMultipartMessageIsUndone() throws {
        let message = handWrittenMessage()
        for number in 1...7 {
            #expect(!message.contains("\(canary(number))"), "canary \(number) is encoded in the message")
        }
        let read = try #require(reading(Array(message.utf8), with: MIMEMessage.read))
        #expect(read.problems.isEmpty)
        #expect(!read.stopped)
        #expect(read.labels(holding: canary(1)) == ["mime:header Subject"])
        #expect(read.texts("mime:header From") == ["Jörg <cou1@example.com>"])
        #expect(read.labels(holding: canary(2)) == ["mime:part 3 (text/plain; iso-8859-1)"])
        #expect(read.texts("mime:part 3 (text/plain; iso-8859-1)").first?.hasPrefix("Café, see") == true)
        #expect(read.labels(holding: canary(3)) == ["mime:part 4 (text/html; utf-8)"])
        #expect(
            read.labels(holding: canary(4)) == [
                "mime:part 5 (text/plain; utf-16) filename", "mime:part 5 header Content-Disposition",
            ])
        #expect(read.labels(holding: canary(5)) == ["mime:part 5 (text/plain; utf-16)"])
        #expect(read.labels(holding: canary(6)) == ["mime:part 6 header Subject"])
        #expect(read.labels(holding: canary(7)) == ["mime:part 7 (text/plain; utf-8)"])
    }

    /// A message as Python's `email` package writes one: the attachment is UTF-16 text in base64.
    @Test func aUTF16AttachmentWrittenByPythonIsReadAsText() throws {
        let container = try ScratchContainer()
        try python(
            """
            import sys
            from email.message import EmailMessage
            message = EmailMessage()
            message["From"] = "cou1@example.com"
            message["To"] = "notes@example.com"
            message["Subject"] = "Shift notes"
            message.set_content("See the attachment.")
            message.add_attachment(
                ("notes: " + sys.argv[2]).encode("utf-16"), maintype="text", subtype="plain",
                filename="notes.txt", params={"charset": "utf-16"})
            open(sys.argv[1], "wb").write(bytes(message))
            """, [container.path("mail.eml"), "\(canary(8))"])
        let bytes = try contents(of: container.path("mail.eml"))
        let read = try #require(reading(bytes, with: MIMEMessage.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(8)) == ["mime:part 3 (text/plain; utf-16)"])
        #expect(read.texts("mime:part 3 (text/plain; utf-16) filename") == ["notes.txt"])
    }

    @Test func aCharsetWithNoConversionIsAProblemNamingThePart() throws {
        let message = """
            From: cou1@example.com
            Content-Type: text/plain; charset=x-sdlab-unknown
            Content-Transfer-Encoding: base64

            \(Data("text \(canary(9))".utf8).base64EncodedString())
            """
        let read = try #require(reading(Array(message.utf8), with: MIMEMessage.read))
        #expect(
            read.problems == [
                "mime part 1 (text/plain; x-sdlab-unknown): charset x-sdlab-unknown has no conversion to UTF-8; "
                    + "read as bytes only"
            ])
        // Its bytes are searched as they are all the same.
        #expect(read.labels(holding: canary(9)) == ["mime:part 1 (text/plain; x-sdlab-unknown)"])
    }

    @Test func anEncryptedPartIsAProblem() throws {
        let message = """
            From: cou1@example.com
            MIME-Version: 1.0
            Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b"

            --b
            Content-Type: application/pgp-encrypted

            Version: 1
            --b
            Content-Type: application/octet-stream

            -----BEGIN PGP MESSAGE-----
            hQEMA1234
            -----END PGP MESSAGE-----
            --b--
            """
        let read = try #require(reading(Array(message.utf8), with: MIMEMessage.read))
        #expect(read.problems == ["mime part 1 (multipart/encrypted) is encrypted"])
    }

    /// Parts nested deeper than the reader follows are named, not read; what is above them is.
    @Test func partsNestedTooDeepAreAProblem() throws {
        var message = "Subject: \(canary(10))\nContent-Type: multipart/mixed; boundary=\"b0\"\n\n"
        for level in 1..<100 {
            message += "--b\(level - 1)\nContent-Type: multipart/mixed; boundary=\"b\(level)\"\n\n"
        }
        message += "--b99\nContent-Type: text/plain\n\n\(canary(11))\n"
        let read = try #require(reading(Array(message.utf8), with: MIMEMessage.read))
        #expect(read.problems == ["mime part 65 is nested too deep to read"])
        #expect(read.labels(holding: canary(10)) == ["mime:header Subject"])
        #expect(read.labels(holding: canary(11)) == [])
    }

    @Test func valuesStopAtTheLimit() throws {
        let body = String(repeating: "x", count: 10_000)
        let message = "Subject: long\n\n\(body)\n"
        let read = try #require(reading(Array(message.utf8), limit: 1000, with: MIMEMessage.read))
        #expect(read.stopped)
        #expect(read.byteCount == 1000)
        let whole = try #require(reading(Array(message.utf8), limit: 20_000, with: MIMEMessage.read))
        #expect(!whole.stopped)
        #expect(whole.byteCount == "long".utf8.count + body.utf8.count + 1)
    }

    @Test(arguments: [
        "Note: buy milk\nthen call home\n\nSubject: not at the start\n\n",
        "Subject: no empty line follows\nFrom: cou1@example.com\n",
        "X-Note: a header, but none a message has\n\nbody\n",
        "{\"From\":\"cou1\"}\n\n",
        " Subject: folded before any header\n\n",
        "",
    ])
    func textThatIsNotAMessageIsNotRead(text: String) {
        #expect(reading(Array(text.utf8), with: MIMEMessage.read) == nil)
    }

    @Test func randomBytesAreNotAMessage() {
        for _ in 0..<200 {
            #expect(reading(randomBytes(4096), with: MIMEMessage.read) == nil)
        }
    }

    @Test func headerNamesAreMatchedWithoutCase() {
        #expect(MIMEMessage.isMessage(text: "MESSAGE-ID: <1@x>\r\n\r\n"))
        #expect(MIMEMessage.isMessage(text: "Received: from x\n\tby y\ncontent-type: text/plain\n\nbody"))
    }

    /// The hand-written message: canaries 1 to 7, each behind one MIME layer.
    private func handWrittenMessage() -> String {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let utf16 = Data([0xFF, 0xFE] + "notes: \(canary(5))".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let quoted = "\(canary(2))".replacingOccurrences(of: "/", with: "=2F")
        let middle = quoted.index(quoted.startIndex, offsetBy: 10)
        return """
            From: =?iso-8859-1?q?J=F6rg?= <cou1@example.com>
            To: notes@example.com
            Subject: =?utf-8?b?\(base64("Übergabe \(canary(1))"))?=
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="outer"

            --outer
            Content-Type: multipart/alternative; boundary="alternative"

            --alternative
            Content-Type: text/plain; charset=iso-8859-1
            Content-Transfer-Encoding: quoted-printable

            Caf=E9, see \(quoted[..<middle])=
            \(quoted[middle...])
            --alternative
            Content-Type: text/html; charset=utf-8
            Content-Transfer-Encoding: base64

            \(base64("<p>\(canary(3))</p>"))
            --alternative--
            --outer
            Content-Type: text/plain; charset=utf-16
            Content-Disposition: attachment; filename="=?utf-8?b?\(base64("\(canary(4)).txt"))?="
            Content-Transfer-Encoding: base64

            \(utf16.base64EncodedString())
            --outer
            Content-Type: message/rfc822

            From: cou1@example.com
            Subject: =?utf-8?q?Fwd=3A_\("\(canary(6))".replacingOccurrences(of: "/", with: "=2F"))?=
            Content-Type: text/plain; charset=utf-8
            Content-Transfer-Encoding: base64

            \(base64("forwarded \(canary(7))"))
            --outer--
            """
    }
}

extension MIMEMessage {
    static func isMessage(text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer { isMessage($0) } }
}
