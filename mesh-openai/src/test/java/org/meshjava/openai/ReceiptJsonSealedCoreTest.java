package org.meshjava.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.steward.ServeResult;

/**
 * The receipt JSON a served reply carries is rendered from the signed core the seal built; it must
 * be byte for byte the JSON of a core built again from the receipt, which is what it was before.
 */
class ReceiptJsonSealedCoreTest {

  @Test
  void receiptJson_fromTheSealsCore_rendersTheSameBytesAsFromTheReceipt() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = served(f);
      byte[] rebuilt = JsonBytes.of(ReceiptJson.of(result.receipt()));

      assertThat(JsonBytes.of(ReceiptJson.of(result.sealed()))).isEqualTo(rebuilt);
      // A verified envelope's core is the payload as decoded: the same JSON again.
      assertThat(JsonBytes.of(ReceiptJson.of(Jcr1.open(result.envelope())))).isEqualTo(rebuilt);
      // Written straight to bytes inside the energy object, not built as a tree: the same bytes.
      JsonNode energy =
          JsonMapper.builder().build().readTree(JsonBytes.of(EnergyUsage.energy(result)));
      assertThat(JsonBytes.of(energy.get("receipt"))).isEqualTo(rebuilt);
      assertThat(new String(JsonBytes.of(EnergyUsage.energy(result)), StandardCharsets.UTF_8))
          .contains("\"receipt\":" + new String(rebuilt, StandardCharsets.UTF_8) + ",");
    }
  }

  /**
   * {@link ReceiptJson#write} writes a sealed receipt's core from the receipt itself, and an opened
   * one's from the payload it decoded: both as the tree renders them.
   */
  @Test
  void receiptJson_writtenWithoutTheTree_matchesTheTree_sealedAndOpened() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = served(f);
      String tree = new String(JsonBytes.of(ReceiptJson.of(result.receipt())), UTF_8);
      SealedReceipt opened = Jcr1.open(result.envelope());

      assertThat(written(result.sealed())).isEqualTo(tree);
      assertThat(written(opened)).isEqualTo(tree);
    }
  }

  private static ServeResult served(Fixture f) throws Exception {
    Prompt prompt = new Prompt(List.of(new Prompt.Message("user", "a receipt, please")));
    ChatAsk ask = ChatAsk.builder(prompt).jouleCeilingUj(5_000_000).build();
    return f.steward.serve(ask.request(), ask.prompt());
  }

  private static String written(SealedReceipt sealed) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JsonMapper.builder().build().createGenerator(out)) {
      ReceiptJson.write(sealed, g);
    }
    return out.toString();
  }
}
