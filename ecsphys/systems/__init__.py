"""The esper processors of one physics step, one stage per module, in step order:

adopt -> integrate -> broadphase -> narrowphase -> response -> events.
"""
