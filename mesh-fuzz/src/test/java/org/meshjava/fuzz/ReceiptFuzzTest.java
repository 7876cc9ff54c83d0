package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.internal.SignedCores;

/**
 * Receipts as a verifier receives them: the JCR-1 envelope, the signed core, the JSON view, and a
 * file of hex envelopes read as {@code mesh verify} reads it (one a line, blank lines passed over).
 */
class ReceiptFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @FuzzTest(maxDuration = "20s")
  void envelope(byte[] input) {
    Hostile.only(() -> Jcr1.open(input), ReceiptException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void signedCore(byte[] input) {
    Hostile.only(
        () -> {
          MeshReceipt receipt = SignedCores.decode(CanonicalCbor.decode(input));
          if (!Arrays.equals(receipt.encodeSignedCore(), input)) {
            throw new AssertionError("accepted core re-encodes differently");
          }
        },
        CborDecodeException.class,
        ReceiptException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void json(byte[] input) {
    JsonNode node;
    try {
      node = JSON.readTree(new String(input, StandardCharsets.UTF_8));
    } catch (JacksonException e) {
      return;
    }
    if (node == null) {
      return;
    }
    Hostile.only(
        () -> {
          MeshReceipt receipt = ReceiptJson.parse(node);
          MeshReceipt again = ReceiptJson.parse(ReceiptJson.of(receipt));
          if (!Arrays.equals(again.encodeSignedCore(), receipt.encodeSignedCore())) {
            throw new AssertionError("the JSON view read back is another receipt");
          }
        },
        ReceiptException.class);
  }

  @FuzzTest(maxDuration = "60s")
  void chain(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> {
          ReceiptChain.Verifier verifier = ReceiptChain.Verifier.segment();
          List<Envelope> envelopes = new ArrayList<>();
          for (String line : text.split("\\R", -1)) {
            if (!line.isBlank()) {
              Envelope e = Envelope.fromHex(line);
              envelopes.add(e);
              verifier.accept(e);
            }
          }
          // The streaming verifier mesh verify uses and the whole-list one agree on a chain.
          if (!envelopes.isEmpty()
              && ReceiptChain.verifySegment(envelopes).size() != verifier.count()) {
            throw new AssertionError("the two chain verifiers disagree");
          }
        },
        IllegalArgumentException.class,
        ReceiptException.class);
  }
}
