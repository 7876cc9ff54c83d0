package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.OTHER_KEY;
import static org.meshjava.receipt.TestReceipts.did;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.ReceiptException.Reason;
import org.meshjava.receipt.internal.CoseSign1;

/** Any change to a sealed envelope is refused with a {@link ReceiptException}, never accepted. */
class Jcr1TamperTest {

  /** Opens {@code bytes}; returns null when refused properly, else what went wrong. */
  private static String misbehaviour(byte[] bytes) {
    Throwable t = catchThrowable(() -> Jcr1.open(bytes));
    if (t == null) {
      return "opened";
    }
    if (!(t instanceof ReceiptException)) {
      return "threw " + t;
    }
    return null;
  }

  @Test
  void open_whenAnyByteIsFlipped_throwsReceiptException() {
    byte[] good = TestReceipts.sealGenesis(TestReceipts.generationDraft()).envelope().bytes();
    List<String> failures = new ArrayList<>();
    for (int mask : new int[] {0x01, 0x80, 0xFF}) {
      for (int i = 0; i < good.length; i++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) mask;
        String m = misbehaviour(bad);
        if (m != null) {
          failures.add("byte " + i + " ^ 0x" + Integer.toHexString(mask) + ": " + m);
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void open_whenTruncatedOrExtended_throwsReceiptException() {
    byte[] good = TestReceipts.sealGenesis(TestReceipts.generationDraft()).envelope().bytes();
    List<String> failures = new ArrayList<>();
    for (int n = 0; n < good.length; n++) {
      String m = misbehaviour(Arrays.copyOf(good, n));
      if (m != null) {
        failures.add("prefix " + n + ": " + m);
      }
    }
    String m = misbehaviour(Arrays.copyOf(good, good.length + 1));
    if (m != null) {
      failures.add("one trailing byte: " + m);
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void open_whenResignedByAnotherKeyUnderTheOriginalKid_refusesAsBadSignature() throws Exception {
    Envelope good = TestReceipts.sealGenesis(TestReceipts.generationDraft()).envelope();
    CoseSign1 original = CoseSign1.decode(good.bytes());
    byte[] forged =
        CoseSign1.sign(
                original.protectedHeader(), CborMap.of(List.of()), original.payload(), OTHER_KEY)
            .encode();

    Throwable t = catchThrowable(() -> Jcr1.open(forged));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
  }

  @Test
  void open_whenStewardFieldIsNotTheKid_refusesAsStewardMismatch() {
    // A properly signed core by OTHER_KEY, whose steward field names KEY.
    CborMap core = TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
    assertThat(core.get("steward")).contains(new CborText(did(KEY).value()));
    Envelope envelope = TestReceipts.signCore(core, OTHER_KEY);

    Throwable t = catchThrowable(() -> Jcr1.open(envelope));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class, e -> assertThat(e.reason()).isEqualTo(Reason.STEWARD_MISMATCH));
  }

  @Test
  void open_whenUnprotectedHeaderIsNotEmpty_refuses() throws Exception {
    Envelope good = TestReceipts.sealGenesis(TestReceipts.generationDraft()).envelope();
    CoseSign1 original = CoseSign1.decode(good.bytes());
    CborMap unprotected = CborMap.builder().put(99, new CborText("x")).build();
    byte[] bad =
        CoseSign1.sign(original.protectedHeader(), unprotected, original.payload(), KEY).encode();

    Throwable t = catchThrowable(() -> Jcr1.open(bad));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNPROTECTED_NOT_EMPTY));
  }
}
