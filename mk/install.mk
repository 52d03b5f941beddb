# mk/install.mk — make install PREFIX=DIR (DESTDIR for staging), included
# by the Makefile; mk/dist.mk adds the distributed layer when it is built.
SMV_VERSION = $(shell sed -n 's/^\#define SMV_VERSION_STRING "\(.*\)"/\1/p' include/smv.h)
install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/smv.h $(DESTDIR)$(PREFIX)/include/smv.h
	install -m 644 include/smv_lab.h $(DESTDIR)$(PREFIX)/include/smv_lab.h
	install -m 644 include/smv_solve.h $(DESTDIR)$(PREFIX)/include/smv_solve.h
	install -m 644 $(BUILD)/libsmv.a $(DESTDIR)$(PREFIX)/lib/libsmv.a
	install -m 644 $(BUILD)/libsmvlab.a $(DESTDIR)$(PREFIX)/lib/libsmvlab.a
	install -m 755 $(BUILD)/libsmv.so $(DESTDIR)$(PREFIX)/lib/libsmv.so.$(SMV_VERSION)
	ln -sf libsmv.so.$(SMV_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libsmv.so
	install -m 755 $(BUILD)/smv $(DESTDIR)$(PREFIX)/bin/smv
	if [ -d $(BUILD)/micro ]; then install -d $(DESTDIR)$(PREFIX)/libexec/smv/micro && \
	  install -m 755 $(BUILD)/micro/* $(DESTDIR)$(PREFIX)/libexec/smv/micro/; fi
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SMV_VERSION)|' \
	  -e 's|@LIBS_PRIVATE@|-fopenmp $(LDLIBS)|' smv.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv.pc
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SMV_VERSION)|' \
	  smv-lab.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv-lab.pc
