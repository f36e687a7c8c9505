package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TallyTest {
  @Test
  void countsLabelsByTheirTextAndPrintsShares() {
    Tally t = new Tally("results");
    t.add("Ticked");
    t.add("Ticked");
    t.add(3);
    t.add("3");
    assertEquals(2, t.count("Ticked"));
    assertEquals(2, t.count(3), "a label counts by its text");
    assertEquals(0, t.count("LeaseGranted"));
    assertEquals(4, t.total());
    assertEquals("results: 3 2 (50%) Ticked 2 (50%)", t.toString());
    assertEquals("empty:", new Tally("empty").toString());
  }
}
