package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.*;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

/**
 * Encodings a hostile caller might send in the hope that the gate reads a presentation with a
 * different meaning than the bytes a signature covers (SPEC 10.1.3, SPEC 30 preamble). Each case
 * edits the bytes of one valid presentation; each must be refused as {@code malformed}, never
 * decoded. Data-driven: every failing case is reported, not only the first.
 */
class PresentationEncodingTricksTest {
  private static final HexFormat HEX = HexFormat.of();

  private static String text(String s) {
    return HEX.formatHex(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Case name to edited presentation hex. */
  private static Map<String, String> tricks(String valid) {
    String budgetKey = "69" + text("budget_uj");
    String budget = budgetKey + "191388"; // 5000
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("budget in a longer head", valid.replace(budget, budgetKey + "1a00001388"));
    cases.put("budget under a tag", valid.replace(budget, budgetKey + "c0191388"));
    cases.put("budget as a bignum", valid.replace(budget, budgetKey + "c2421388"));
    cases.put("budget as a float", valid.replace(budget, budgetKey + "fa459c4000"));
    cases.put("budget negative", valid.replace(budget, budgetKey + "391387"));
    cases.put(
        "a grant key repeated (expiry renamed issuer)",
        valid.replace("66" + text("expiry"), "66" + text("issuer")));
    cases.put(
        "actions of indefinite length",
        valid.replace("8165" + text("infer"), "9f65" + text("infer") + "ff"));
    cases.put(
        "a key's text in a longer head",
        valid.replace("6a" + text("not_before"), "780a" + text("not_before")));
    cases.put(
        "the grant map under a tag", valid.replace(text("grant") + "a8", text("grant") + "d818a8"));
    cases.put(
        "a grant signature under a tag",
        valid.replace(text("signature") + "5840", text("signature") + "c05840"));
    cases.put("the presentation under a tag", "d818" + valid);
    cases.put("the presentation of indefinite length", "bf" + valid.substring(2) + "ff");
    cases.put("a byte after the presentation", valid + "00");
    cases.put("the presentation cut short", valid.substring(0, valid.length() - 2));
    cases.put(
        "a nonce of 17 bytes",
        valid
            .replace("65" + text("nonce") + "50", "65" + text("nonce") + "51")
            .replace("01010101010101010101010101010101", "0101010101010101010101010101010101"));
    return cases;
  }

  @Test
  void everyReencodingTrick_isRefusedAsMalformed() throws Exception {
    String valid = present(directChain(5_000), REQUEST, 1).toHex();
    assertThat(Presentation.fromHex(valid).toHex()).isEqualTo(valid);
    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, String> c : tricks(valid).entrySet()) {
      if (c.getValue().equals(valid)) {
        failures.add(c.getKey() + ": the edit did not apply");
        continue;
      }
      try {
        Presentation decoded = Presentation.fromHex(c.getValue());
        failures.add(c.getKey() + ": decoded as " + decoded);
      } catch (MalformedGrantException e) {
        if (e.label() != DenialLabel.MALFORMED) {
          failures.add(c.getKey() + ": labelled " + e.label());
        }
      } catch (RuntimeException e) {
        failures.add(c.getKey() + ": escaped as " + e);
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void aChainOfSeventeenLinks_isMalformed() throws Exception {
    GrantChain chain = Jcp.issueRoot(CALLER, CALLER_DID, 5_000, T0, T_END);
    while (chain.links().size() < GrantChain.MAX_LINKS) {
      chain = Jcp.delegate(CALLER, chain, CALLER_DID, 5_000);
    }
    Grant extra = Grant.delegatedFrom(chain.leaf()).subject(STEWARD_DID).build();
    String sixteen = chain.toHex();
    // 0x90 + 16 items becomes 0x91: one more envelope appended.
    String seventeen = "91" + sixteen.substring(2) + SignedGrant.sign(CALLER, extra).toHex();
    assertThat(sixteen).startsWith("90");
    MalformedGrantException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            MalformedGrantException.class, () -> GrantChain.fromHex(seventeen));
    assertThat(e.malformation()).isEqualTo(Malformation.VALUE);
  }

  @Test
  void aSignatureOverNonCanonicalBytesOfTheGrant_doesNotVerify() throws Exception {
    Grant grant = directChain(5_000).root().grant();
    String canonical = HEX.formatHex(grant.toCbor().encode());
    String budgetKey = "69" + text("budget_uj");
    String longer = canonical.replace(budgetKey + "191388", budgetKey + "1a00001388");
    assertThat(longer).isNotEqualTo(canonical);
    SignedGrant signedOverLonger = SignedGrant.of(grant, CALLER.sign(HEX.parseHex(longer)));
    GrantRefusedException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            GrantRefusedException.class,
            () -> decide(gate(), present(GrantChain.of(signedOverLonger), REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
  }
}
