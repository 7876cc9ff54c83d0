package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.receipt.internal.SignedCores;

/** The signed core a sealed receipt carries is the one its envelope's payload encodes. */
class SealedReceiptCoreTest {

  private static byte[] payload(Envelope envelope) throws Exception {
    CborTag tag = (CborTag) CanonicalCbor.decode(envelope.bytes());
    return ((CborBytes) ((CborArray) tag.content()).items().get(2)).bytes();
  }

  @Test
  void sealing_carriesTheCoreItSigned_andOpeningTheCoreItDecoded() throws Exception {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());
    byte[] signed = payload(sealed.envelope());

    assertThat(sealed.signedCore().encode()).isEqualTo(signed);
    assertThat(sealed.signedCore()).isEqualTo(sealed.receipt().toSignedCore());

    SealedReceipt opened = Jcr1.open(sealed.envelope());
    assertThat(opened.signedCore().encode()).isEqualTo(signed);
    assertThat(opened).isEqualTo(sealed);
  }

  @Test
  void twoPartConstructor_buildsTheCoreFromTheReceipt() {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());

    SealedReceipt paired = new SealedReceipt(sealed.receipt(), sealed.envelope());

    assertThat(paired.signedCore()).isEqualTo(sealed.signedCore());
    assertThat(paired).isEqualTo(sealed);
  }

  /**
   * The API gives the core as bytes, the envelope's payload; the modules that work in the CBOR
   * model (the HTTP binding's JSON view) read it through {@link SignedCores}: an opened receipt's
   * the very map its payload decoded to, a sealed one's (whose core was written straight to bytes,
   * no map kept) the map of its receipt.
   */
  @Test
  void theCoreIsBytesInTheApi_andTheMapThroughSignedCores() throws Exception {
    SealedReceipt sealed = TestReceipts.sealGenesis(TestReceipts.generationDraft());
    SealedReceipt opened = Jcr1.open(sealed.envelope());

    assertThat(sealed.receipt().encodeSignedCore()).isEqualTo(payload(sealed.envelope()));
    assertThat(SignedCores.of(opened)).isSameAs(opened.signedCore());
    assertThat(SignedCores.of(sealed)).isEqualTo(sealed.signedCore());
    assertThat(SignedCores.of(sealed).encode()).isEqualTo(payload(sealed.envelope()));
    assertThat(SignedCores.encode(sealed.receipt())).isEqualTo(sealed.signedCore());
    assertThat(SignedCores.decode(sealed.signedCore())).isEqualTo(sealed.receipt());
  }

  /**
   * No caller outside this package can hand in a core: as a record's third component it was a
   * public constructor argument, so a receipt could be paired with another receipt's core, which
   * the receipt JSON ({@code ReceiptJson.of(SealedReceipt)}) then showed as this receipt.
   */
  @Test
  void publicConstructors_takeNoSignedCore() {
    assertThat(SealedReceipt.class.getConstructors())
        .isNotEmpty()
        .allSatisfy(
            c -> assertThat(c.getParameterTypes()).doesNotContain(CborMap.class).hasSize(2));
  }
}
