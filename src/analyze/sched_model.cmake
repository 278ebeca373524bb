# Scheduler model: per-thread timelines from sched.latrec (kernel catalog)
# and the on-CPU / runqueue / blocked split of hops, whole or for a pass in
# bounded memory (sched_pass.c); the runqueue waits of a run in bounded
# memory (sched_waits.c). libc only.
# Included by src/analyze/CMakeLists.txt into the latrec_analyze target.
target_sources(latrec_analyze PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sched_model.c
  ${CMAKE_CURRENT_LIST_DIR}/sched_query.c ${CMAKE_CURRENT_LIST_DIR}/sched_forget.c
  ${CMAKE_CURRENT_LIST_DIR}/sched_pass.c ${CMAKE_CURRENT_LIST_DIR}/sched_waits.c)
