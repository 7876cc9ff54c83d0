package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.receipt.Jcr1;
import org.meshjava.steward.ServeResult;

/**
 * The receipt JSON a served reply carries is rendered from the signed core the seal built; it must
 * be byte for byte the JSON of a core built again from the receipt, which is what it was before.
 */
class ReceiptJsonSealedCoreTest {

  @Test
  void receiptJson_fromTheSealsCore_rendersTheSameBytesAsFromTheReceipt() throws Exception {
    try (Fixture f = new Fixture()) {
      Prompt prompt = new Prompt(List.of(new Prompt.Message("user", "a receipt, please")));
      ChatAsk ask = ChatAsk.builder(prompt).jouleCeilingUj(5_000_000).build();
      ServeResult result = f.steward.serve(ask.request(), ask.prompt());
      byte[] rebuilt = JsonBytes.of(ReceiptJson.of(result.receipt()));

      assertThat(JsonBytes.of(ReceiptJson.of(result.sealed()))).isEqualTo(rebuilt);
      // A verified envelope's core is the payload as decoded: the same JSON again.
      assertThat(JsonBytes.of(ReceiptJson.of(Jcr1.open(result.envelope())))).isEqualTo(rebuilt);
      assertThat(JsonBytes.of(EnergyUsage.of(result).get("receipt"))).isEqualTo(rebuilt);
    }
  }
}
