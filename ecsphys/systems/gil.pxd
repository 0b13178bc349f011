# When the step's stages let go of the GIL.
#
# Guarantees: a stage runs its compiled loop without the GIL (other Python threads of the game
# run meanwhile) when it goes over at least `NOGIL_MIN` rows or pairs; below that it keeps the
# GIL, so a small world does not pay for letting go and taking it back (some 0.1 us each
# time with other threads alive: about a tenth of a 10-body step, over a step's dozen loops),
# where the loop itself takes less than that. The results are the same bits either way.

cdef enum:
    NOGIL_MIN = 256
