package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/** The README's code, run as written, so the example keeps compiling and working. */
class ReadmeExampleTest {

  @Test
  void readmeExample_issuesDelegatesPresentsDecidesAndDebits() throws Exception {
    SigningKey stewardKey = Jcp.newKey();
    String stewardDidText = Jcp.identity(stewardKey).value();
    ContentId weightsDigest = ContentId.ofBytes(new byte[] {1, 2, 3});
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {4}), 3, new ServeBounds(8, Fidelity.of(1), 1_500_000));
    DidKey stewardA = Jcp.identity(Jcp.newKey());
    DidKey stewardB = Jcp.identity(Jcp.newKey());
    long meteredUj = 1_200_000;

    // --- caller side, as in the README ---
    SigningKey org = Jcp.newKey();
    SigningKey me = Jcp.newKey();
    DidKey steward = DidKey.parse(stewardDidText);

    Instant now = Instant.now();
    GrantChain mine =
        Jcp.issueRoot(
            org,
            Jcp.identity(me),
            50_000_000,
            now,
            now.plusSeconds(3600),
            ModelIn.of(weightsDigest));
    GrantChain forSteward = Jcp.delegate(me, mine, steward, 10_000_000, new MaxCostUj(2_000_000));

    Presentation p = Jcp.present(me, forSteward, request);
    String wire = p.toHex();

    List<GrantChain> shards =
        Jcp.shard(
            me, mine, List.of(new Shard(stewardA, 30_000_000), new Shard(stewardB, 20_000_000)));

    // --- steward side, as in the README ---
    DidKey stewardDid = steward;
    Gate gate = Gate.create(stewardDid, SpendLedger.inMemory(), Revocations.none());
    Authorisation a =
        gate.decide(Presentation.fromHex(wire), request, Optional.of(weightsDigest), Instant.now());
    DebitResult r = gate.debit(a, meteredUj);
    Optional<String> grantBreach = r.breach().map(DenialLabel::wire);

    assertThat(shards).hasSize(2);
    assertThat(grantBreach).isEmpty();
    assertThat(r.remainingUj()).isEqualTo(10_000_000 - meteredUj);
  }
}
