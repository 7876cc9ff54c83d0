package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.did;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.receipt.internal.CoseSign1;

/**
 * A sealed envelope taken apart by hand: every byte of the JCR-1 profile (§6) is checked against
 * encodings this test writes itself, not against the codec under test.
 */
class Jcr1ProfileTest {

  /** Writes a CBOR head for a major type and a length below 2^16, in shortest form. */
  private static void head(ByteArrayOutputStream out, int major, int length) {
    int mt = major << 5;
    if (length < 24) {
      out.write(mt | length);
    } else if (length < 256) {
      out.write(mt | 24);
      out.write(length);
    } else {
      out.write(mt | 25);
      out.write(length >>> 8);
      out.write(length & 0xFF);
    }
  }

  private static void bstr(ByteArrayOutputStream out, byte[] bytes) {
    head(out, 2, bytes.length);
    out.writeBytes(bytes);
  }

  @Test
  void seal_protectedHeader_isExactlyAlgMinus8ThenKidAsDidKeyBytes() throws Exception {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());
    byte[] kid = did(KEY).value().getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write(0xA2); // map of 2
    expected.write(0x01); // label 1 (alg)
    expected.write(0x27); // -8 (EdDSA)
    expected.write(0x04); // label 4 (kid)
    bstr(expected, kid);

    CborTag tag = (CborTag) CanonicalCbor.decode(sealed.envelope().bytes());
    List<CborValue> items = ((CborArray) tag.content()).items();

    assertThat(((CborBytes) items.get(0)).bytes()).isEqualTo(expected.toByteArray());
    assertThat(Jcr1.protectedHeader(did(KEY))).isEqualTo(expected.toByteArray());
  }

  @Test
  void seal_envelope_isTag18OverFourItemsWithEmptyUnprotectedAndTheSignedCoreAsPayload()
      throws Exception {
    MeshReceipt receipt = TestReceipts.genesis(TestReceipts.generationDraft());
    SealedReceipt sealed = Jcr1.seal(receipt, KEY);
    byte[] bytes = sealed.envelope().bytes();

    assertThat(bytes[0] & 0xFF).as("tag 18 in one byte").isEqualTo(0xD2);
    assertThat(bytes[1] & 0xFF).as("array of four").isEqualTo(0x84);
    CborValue decoded = CanonicalCbor.decode(bytes);
    assertThat(decoded).isInstanceOf(CborTag.class);
    CborTag tag = (CborTag) decoded;
    assertThat(tag.tag()).isEqualTo(18);
    List<CborValue> items = ((CborArray) tag.content()).items();
    assertThat(items).hasSize(4);
    assertThat(items.get(1)).isEqualTo(CborMap.of(List.of()));
    byte[] payload = ((CborBytes) items.get(2)).bytes();
    assertThat(payload).isEqualTo(receipt.toSignedCore().encode());
    assertThat(CanonicalCbor.decode(payload)).isEqualTo(receipt.toSignedCore());
    assertThat(((CborBytes) items.get(3)).length()).isEqualTo(64);
  }

  @Test
  void seal_signature_verifiesOverAHandBuiltSigStructure() throws Exception {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());
    List<CborValue> items =
        ((CborArray) ((CborTag) CanonicalCbor.decode(sealed.envelope().bytes())).content()).items();
    byte[] protectedHeader = ((CborBytes) items.get(0)).bytes();
    byte[] payload = ((CborBytes) items.get(2)).bytes();
    byte[] signature = ((CborBytes) items.get(3)).bytes();

    ByteArrayOutputStream sig = new ByteArrayOutputStream();
    sig.write(0x84); // array of four
    byte[] context = "Signature1".getBytes(StandardCharsets.US_ASCII);
    head(sig, 3, context.length);
    sig.writeBytes(context);
    bstr(sig, protectedHeader);
    sig.write(0x40); // empty external AAD
    bstr(sig, payload);

    assertThat(CoseSign1.sigStructure(protectedHeader, payload)).isEqualTo(sig.toByteArray());
    assertThatNoException()
        .isThrownBy(() -> KEY.verificationKey().verify(sig.toByteArray(), signature));
  }

  @Test
  void envelopeId_isBlake3OfTheEnvelopeBytes() {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());

    assertThat(sealed.envelope().id().bytes()).isEqualTo(Blake3.hash(sealed.envelope().bytes()));
  }

  @Test
  void open_ofASealedReceipt_returnsTheSameReceipt() throws Exception {
    MeshReceipt receipt = TestReceipts.genesis(TestReceipts.generationDraft());
    SealedReceipt sealed = Jcr1.seal(receipt, KEY);

    SealedReceipt opened = Jcr1.open(sealed.envelope());

    assertThat(opened.receipt()).isEqualTo(receipt);
    assertThat(opened.envelope()).isEqualTo(sealed.envelope());
  }

  @Test
  void seal_isDeterministic_forTheSameReceiptAndKey() {
    MeshReceipt receipt = TestReceipts.genesis(TestReceipts.generationDraft());

    assertThat(Jcr1.seal(receipt, KEY).envelope()).isEqualTo(Jcr1.seal(receipt, KEY).envelope());
  }

  @Test
  void seal_whenReceiptNamesAnotherSteward_refuses() {
    MeshReceipt receipt = TestReceipts.genesis(TestReceipts.generationDraft());

    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> Jcr1.seal(receipt, TestReceipts.OTHER_KEY));
  }
}
