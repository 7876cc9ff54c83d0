package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.steward.ServeResult;

/**
 * {@code envelope_hex} is handed to the UTF-8 generator as bytes, unscanned: the reply must read
 * byte for byte as it did when it was an ordinary string.
 */
class HexTextTest {

  @Test
  void envelopeHex_rendersTheSameBytes_andReadsAsTheSameText_asAnOrdinaryString() throws Exception {
    try (Fixture f = new Fixture()) {
      Prompt prompt = new Prompt(List.of(new Prompt.Message("user", "hex, unescaped")));
      ChatAsk ask = ChatAsk.builder(prompt).maxTokens(4).jouleCeilingUj(5_000_000).build();
      ServeResult result = f.steward.serve(ask.request(), ask.prompt());
      JsonNode energy = EnergyUsage.energy(result);
      // Read back, every value is an ordinary node: the hex an ordinary string.
      ObjectNode plain = (ObjectNode) JsonMapper.builder().build().readTree(JsonBytes.of(energy));
      plain.put("envelope_hex", result.envelope().hex());

      assertThat(JsonBytes.of(energy)).isEqualTo(JsonBytes.of(plain));
      assertThat(energy.toString()).isEqualTo(plain.toString());
      assertThat(plain.get("envelope_hex").asText()).isEqualTo(result.envelope().hex());
    }
  }
}
