package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;

/**
 * A caveat's and a resource list's wire form as the API gives it, bytes ({@code encode}, {@link
 * Caveat#decode}): the CBOR value model behind them is not API, so these are how a user reaches a
 * grant's parts in canonical form.
 */
class CaveatWireFormTest {
  private static final ContentId A = ContentId.ofBytes(new byte[] {1});
  private static final ContentId B = ContentId.ofBytes(new byte[] {2});

  private static final CborMap GEOFENCE =
      CborMap.builder().put("caveat", "Geofence").put("region", "eu").build();

  @Test
  void everyKindOfCaveat_readsBackFromItsBytes_asTheSameCaveat() throws Exception {
    for (Caveat c :
        List.of(
            new ModelIn(Set.of(A, B)), new MaxCostUj(5_000), Caveat.decode(GEOFENCE.encode()))) {
      assertThat(Caveat.decode(c.encode())).as(c.kind()).isEqualTo(c);
      assertThat(c.encode()).as(c.kind()).isEqualTo(Grant.caveatCbor(c).encode());
    }
  }

  @Test
  void aCaveatOfAnUnknownKind_isKeptAsWritten() throws Exception {
    Caveat c = Caveat.decode(GEOFENCE.encode());

    assertThat(c).isInstanceOf(UnknownCaveat.class);
    assertThat(c.kind()).isEqualTo("Geofence");
    assertThat(c.encode()).isEqualTo(GEOFENCE.encode());
  }

  @Test
  void bytesThatAreNoCaveat_areRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> Caveat.decode(new CborText("x").encode()))
        .isInstanceOf(MalformedGrantException.class)
        .hasMessageContaining("a caveat is a map");
    assertThatThrownBy(() -> Caveat.decode(CborMap.builder().put("uj", 1).build().encode()))
        .isInstanceOf(MalformedGrantException.class)
        .hasMessageContaining("caveat.caveat");
    assertThatThrownBy(() -> Caveat.decode(new byte[] {(byte) 0xa1}))
        .isInstanceOf(MalformedGrantException.class);
  }

  @Test
  void resources_encodeAsTheWireFormSays() {
    assertThat(Resources.all().encode()).isEqualTo(new CborText("*").encode());
    assertThat(Resources.only(Set.of(B, A)).encode())
        .isEqualTo(
            new CborArray(
                    List.of(
                        new CborText(A.compareTo(B) < 0 ? A.hex() : B.hex()),
                        new CborText(A.compareTo(B) < 0 ? B.hex() : A.hex())))
                .encode());
  }
}
