package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.OTHER_KEY;
import static org.meshjava.receipt.TestReceipts.did;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.internal.ReceiptLog;

/**
 * Envelopes written byte by byte, each correctly signed by the key its kid names, so that only its
 * shape can be at fault: extra or duplicate header parameters, non-shortest integers, indefinite
 * lengths, other tags, a kid that is not the steward's, a signed core that is not canonical. Each
 * must be a {@link ReceiptException}, never another exception and never an accepted receipt (SPEC
 * 20 §3; RFC 9052 §4.2 with mesh/1 §6's restrictions).
 */
class Jcr1CraftedEnvelopeTest {

  /** Raw CBOR, written without the codec under test. */
  private static final class Raw {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Raw head(int major, long n) {
      int mt = major << 5;
      if (n < 24) {
        out.write(mt | (int) n);
      } else if (n < 256) {
        out.write(mt | 24);
        out.write((int) n);
      } else {
        out.write(mt | 25);
        out.write((int) (n >>> 8));
        out.write((int) (n & 0xFF));
      }
      return this;
    }

    Raw bytes(int... b) {
      for (int x : b) {
        out.write(x);
      }
      return this;
    }

    Raw raw(byte[] b) {
      out.writeBytes(b);
      return this;
    }

    Raw bstr(byte[] b) {
      return head(2, b.length).raw(b);
    }

    Raw tstr(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      return head(3, b.length).raw(b);
    }

    byte[] done() {
      return out.toByteArray();
    }
  }

  private static final byte[] KID = did(KEY).value().getBytes(StandardCharsets.UTF_8);
  private static final byte[] CORE =
      TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore().encode();

  private static byte[] sigStructure(byte[] protectedHeader, byte[] payload) {
    return new Raw()
        .bytes(0x84)
        .tstr("Signature1")
        .bstr(protectedHeader)
        .bytes(0x40)
        .bstr(payload)
        .done();
  }

  /** tag 18 [protected, {}, payload, signature by KEY over them]. */
  private static byte[] envelope(byte[] protectedHeader, byte[] payload) {
    byte[] sig = KEY.sign(sigStructure(protectedHeader, payload));
    return new Raw()
        .bytes(0xD2, 0x84)
        .bstr(protectedHeader)
        .bytes(0xA0)
        .bstr(payload)
        .bstr(sig)
        .done();
  }

  private static byte[] bytesOf(String ascii) {
    return ascii.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] header(int... prefix) {
    return new Raw().bytes(prefix).done();
  }

  private static byte[] kid() {
    return new Raw().bstr(KID).done();
  }

  private static byte[] cat(byte[]... parts) {
    Raw r = new Raw();
    for (byte[] p : parts) {
      r.raw(p);
    }
    return r.done();
  }

  private static Map<String, byte[]> cases() {
    Map<String, byte[]> c = new LinkedHashMap<>();
    byte[] good = cat(header(0xA2, 0x01, 0x27, 0x04), kid());
    byte[] sig = KEY.sign(sigStructure(good, CORE));
    // Protected header.
    c.put(
        "content type added",
        envelope(
            cat(header(0xA3, 0x01, 0x27, 0x03), new Raw().tstr("x").done(), header(0x04), kid()),
            CORE));
    c.put(
        "crit added",
        envelope(cat(header(0xA3, 0x01, 0x27, 0x02, 0x81, 0x18, 0x63, 0x04), kid()), CORE));
    c.put("alg twice", envelope(cat(header(0xA3, 0x01, 0x27, 0x01, 0x27, 0x04), kid()), CORE));
    c.put(
        "kid twice",
        envelope(cat(header(0xA3, 0x01, 0x27, 0x04), kid(), header(0x04), kid()), CORE));
    c.put("alg -8 in two bytes", envelope(cat(header(0xA2, 0x01, 0x38, 0x07, 0x04), kid()), CORE));
    c.put("label 1 in two bytes", envelope(cat(header(0xA2, 0x18, 0x01, 0x27, 0x04), kid()), CORE));
    c.put(
        "labels out of order", envelope(cat(header(0xA2, 0x04), kid(), header(0x01, 0x27)), CORE));
    c.put(
        "indefinite-length header map",
        envelope(cat(header(0xBF, 0x01, 0x27, 0x04), kid(), header(0xFF)), CORE));
    c.put(
        "kid as text",
        envelope(
            cat(header(0xA2, 0x01, 0x27, 0x04), new Raw().tstr(did(KEY).value()).done()), CORE));
    c.put(
        "kid in indefinite chunks",
        envelope(cat(header(0xA2, 0x01, 0x27, 0x04, 0x5F), kid(), header(0xFF)), CORE));
    c.put("kid tagged", envelope(cat(header(0xA2, 0x01, 0x27, 0x04, 0xD8, 0x18), kid()), CORE));
    c.put(
        "kid of another key, signed by it",
        cat(
            new Raw().bytes(0xD2, 0x84).done(),
            signedBy(
                OTHER_KEY,
                cat(
                    header(0xA2, 0x01, 0x27, 0x04),
                    new Raw().bstr(did(OTHER_KEY).value().getBytes(StandardCharsets.UTF_8)).done()),
                CORE)));
    c.put(
        "kid not a did:key",
        envelope(
            cat(
                header(0xA2, 0x01, 0x27, 0x04),
                new Raw().bstr("did:web:x".getBytes(StandardCharsets.UTF_8)).done()),
            CORE));
    c.put(
        "kid not UTF-8",
        envelope(
            cat(
                header(0xA2, 0x01, 0x27, 0x04),
                new Raw().bstr("did:key:\u00ff".getBytes(StandardCharsets.ISO_8859_1)).done()),
            CORE));
    c.put(
        "alg as text",
        envelope(cat(header(0xA2, 0x01, 0x65), bytesOf("EdDSA"), header(0x04), kid()), CORE));
    c.put("alg -7", envelope(cat(header(0xA2, 0x01, 0x26, 0x04), kid()), CORE));
    c.put("alg absent", envelope(cat(header(0xA1, 0x04), kid()), CORE));
    c.put("empty protected bytes", envelope(new byte[0], CORE));
    c.put("protected header with a byte after", envelope(cat(good, header(0x00)), CORE));
    // The envelope around it.
    c.put("untagged", new Raw().bytes(0x84).bstr(good).bytes(0xA0).bstr(CORE).bstr(sig).done());
    c.put(
        "tag 98",
        new Raw().bytes(0xD8, 0x62, 0x84).bstr(good).bytes(0xA0).bstr(CORE).bstr(sig).done());
    c.put(
        "tag 18 in two bytes",
        new Raw().bytes(0xD8, 0x12, 0x84).bstr(good).bytes(0xA0).bstr(CORE).bstr(sig).done());
    c.put(
        "self-described tag 18",
        new Raw()
            .bytes(0xD9, 0xD9, 0xF7, 0xD2, 0x84)
            .bstr(good)
            .bytes(0xA0)
            .bstr(CORE)
            .bstr(sig)
            .done());
    c.put(
        "indefinite-length array",
        new Raw().bytes(0xD2, 0x9F).bstr(good).bytes(0xA0).bstr(CORE).bstr(sig).bytes(0xFF).done());
    c.put(
        "five items",
        new Raw().bytes(0xD2, 0x85).bstr(good).bytes(0xA0).bstr(CORE).bstr(sig).bytes(0x00).done());
    c.put(
        "detached payload",
        new Raw().bytes(0xD2, 0x84).bstr(good).bytes(0xA0, 0xF6).bstr(sig).done());
    c.put(
        "payload length in a longer head",
        new Raw()
            .bytes(0xD2, 0x84)
            .bstr(good)
            .bytes(0xA0, 0x5A)
            .bytes(0, 0, CORE.length >>> 8, CORE.length & 0xFF)
            .raw(CORE)
            .bstr(sig)
            .done());
    c.put(
        "payload in indefinite chunks",
        new Raw()
            .bytes(0xD2, 0x84)
            .bstr(good)
            .bytes(0xA0, 0x5F)
            .bstr(CORE)
            .bytes(0xFF)
            .bstr(sig)
            .done());
    c.put(
        "unprotected kid",
        new Raw()
            .bytes(0xD2, 0x84)
            .bstr(good)
            .bytes(0xA1, 0x04)
            .bstr(KID)
            .bstr(CORE)
            .bstr(sig)
            .done());
    c.put(
        "unprotected indefinite empty map",
        new Raw().bytes(0xD2, 0x84).bstr(good).bytes(0xBF, 0xFF).bstr(CORE).bstr(sig).done());
    c.put(
        "signature of 65 bytes",
        new Raw()
            .bytes(0xD2, 0x84)
            .bstr(good)
            .bytes(0xA0)
            .bstr(CORE)
            .bstr(java.util.Arrays.copyOf(sig, 65))
            .done());
    // The signed core, each correctly signed.
    c.put("core with a byte after", envelope(good, cat(CORE, header(0x00))));
    c.put("core in an indefinite map", envelope(good, indefinite(CORE)));
    c.put("core with an unknown field", envelope(good, with("zz_extra", new CborText("x"))));
    c.put("core with a key twice", envelope(good, keyTwice(CORE)));
    c.put("core as a tagged map", envelope(good, cat(header(0xD8, 0x18), CORE)));
    c.put("core empty", envelope(good, new byte[0]));
    c.put("core not a map", envelope(good, header(0x80)));
    return c;
  }

  private static byte[] signedBy(
      org.meshjava.core.crypto.SigningKey key, byte[] protectedHeader, byte[] payload) {
    byte[] sig = key.sign(sigStructure(protectedHeader, payload));
    return new Raw().bstr(protectedHeader).bytes(0xA0).bstr(payload).bstr(sig).done();
  }

  private static byte[] with(String key, CborText value) {
    CborMap core = TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
    return TestReceipts.with(core, key, value).encode();
  }

  /** The canonical map {@code core} re-headed as indefinite-length. */
  private static byte[] indefinite(byte[] core) {
    int skip = headLength(core);
    return cat(header(0xBF), java.util.Arrays.copyOfRange(core, skip, core.length), header(0xFF));
  }

  /** The map {@code core} with its first entry written twice, its count raised by one. */
  private static byte[] keyTwice(byte[] core) {
    CborMap m = TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
    CborMap.Entry first = m.entries().get(0);
    byte[] entry = cat(first.key().encode(), first.value().encode());
    int skip = headLength(core);
    return cat(
        new Raw().head(5, m.entries().size() + 1).done(),
        entry,
        java.util.Arrays.copyOfRange(core, skip, core.length));
  }

  private static int headLength(byte[] item) {
    int info = item[0] & 0x1F;
    return info < 24 ? 1 : info == 24 ? 2 : info == 25 ? 3 : info == 26 ? 5 : 9;
  }

  @Test
  void everyCraftedEnvelope_isATypedRefusal_neverAnotherExceptionOrAnAccept() {
    Map<String, byte[]> cases = cases();
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : cases.entrySet()) {
      try {
        SealedReceipt r = Jcr1.open(e.getValue());
        wrong.add(e.getKey() + ": accepted as " + r.receipt().sequence());
      } catch (ReceiptException x) {
        if (x.getMessage() == null || x.getMessage().isBlank()) {
          wrong.add(e.getKey() + ": a refusal with no message");
        } else if (x.getMessage().matches("(?s).*(Cbor[A-Za-z]+\\[|Input length).*")) {
          // A value named as Java prints a decoded record, not as the envelope writes it.
          wrong.add(e.getKey() + ": " + x.getMessage());
        }
      } catch (RuntimeException x) {
        wrong.add(e.getKey() + ": " + x);
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(cases).hasSizeGreaterThanOrEqualTo(38);
  }

  @Test
  void aForkedChain_isRefusedAtTheSecondBranch_andAChainFromTwoStewardsAtGenesisToo() {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    SealedReceipt first = log.append(TestReceipts.generationDraft());
    ChainHead head = ChainHead.after(first);
    // Two receipts the same steward sealed at sequence 1, both after the first: a fork.
    Envelope a = ReceiptLog.resume(KEY, head).append(TestReceipts.generationDraft()).envelope();
    Envelope b =
        ReceiptLog.resume(KEY, head)
            .append(TestReceipts.generationDraft().counters(new OutcomeCounters(1, 8, 7, 0, 0, 0)))
            .envelope();
    assertThat(a).isNotEqualTo(b);
    Throwable fork =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> ReceiptChain.verifyFromGenesis(List.of(first.envelope(), a, b)));
    assertThat(fork)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ReceiptException.Reason.BROKEN_CHAIN);
              assertThat(e.index()).hasValue(2);
            });
    Envelope otherGenesis =
        ReceiptLog.genesis(OTHER_KEY).append(TestReceipts.generationDraft()).envelope();
    Throwable twoGeneses =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> ReceiptChain.verifyFromGenesis(List.of(first.envelope(), otherGenesis)));
    assertThat(twoGeneses).isInstanceOf(ReceiptException.class);
  }

  @Test
  void theHarnessBuildsEnvelopesThatOpen() throws Exception {
    // The same raw writer with nothing wrong: what the refusals above refuse is the crafted part.
    byte[] good = cat(header(0xA2, 0x01, 0x27, 0x04), kid());
    assertThat(Jcr1.open(envelope(good, CORE)).receipt())
        .isEqualTo(TestReceipts.genesis(TestReceipts.generationDraft()));
  }
}
