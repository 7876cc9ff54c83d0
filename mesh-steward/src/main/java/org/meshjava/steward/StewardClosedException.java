package org.meshjava.steward;

/**
 * A serve refused, before any work, because its steward is closed (or closing): it was not routed,
 * no grant was decided, no engine ran and nothing was recorded, so a presentation it carried is not
 * spent, and the same serve may be sent again to a steward that is running (this one started again,
 * or another). Its reason is {@link ServeException.Reason#NOT_RECORDED}, so a caller that matches
 * on reasons alone handles it as any serve not recorded: a closed steward's journal records nothing
 * more. An HTTP binding tells it from a serve that was refused after its grant was decided, whose
 * resend would find the presentation spent.
 */
public final class StewardClosedException extends ServeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  StewardClosedException() {
    super(
        Reason.NOT_RECORDED,
        "the steward is closed, so it serves nothing: nothing of this serve was decided, run or"
            + " recorded (a presentation it carried is not spent), so it can be sent again to a"
            + " steward that is running",
        java.util.List.of(),
        null);
  }
}
