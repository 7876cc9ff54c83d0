package org.meshjava.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.internal.CoseSign1;

/** This implementation as a {@link ConformanceSubject}. */
public final class MeshJavaSubject implements ConformanceSubject {

  /** Creates the subject. */
  public MeshJavaSubject() {}

  @Override
  public byte[] encodeSignedCore(JsonNode receiptJson) throws Exception {
    return ReceiptJson.parse(receiptJson).encodeSignedCore();
  }

  @Override
  public byte[] seal(byte[] signedCore, byte[] stewardSeed) {
    SigningKey key = SigningKey.fromSeed(stewardSeed);
    return CoseSign1.sign(
            Jcr1.protectedHeader(DidKey.of(key.verificationKey())),
            CborMap.of(List.of()),
            signedCore,
            key)
        .encode();
  }

  @Override
  public byte[] serve(ReferenceInputs inputs) throws Exception {
    return ReferenceServe.run(inputs).envelope().bytes();
  }
}
