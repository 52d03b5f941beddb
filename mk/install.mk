# mk/install.mk — make install | uninstall PREFIX=DIR (DESTDIR for staging),
# included by the Makefile; mk/dist.mk adds the distributed layer when it is
# built (install-dist, uninstall-dist).
#
# Installed: the headers, libsmv.a, libsmv.so (soname libsmv.so.0),
# libsmvlab.a, bin/smv, the micro programs (when built), pkg-config files
# (smv.pc, smv-lab.pc; smv-dist.pc with MPI) and a CMake package
# (lib/cmake/smv: smvConfig.cmake with the imported targets smv::smv,
# smv::smv_static, smv::lab and smv::dist, and smvConfigVersion.cmake).
# Programs linked through either find libsmv.so without LD_LIBRARY_PATH:
# smv.pc's Libs carry -Wl,-rpath,PREFIX/lib, and CMake puts the imported
# library's folder in the build's RPATH. What libsmv.so itself needs
# (OpenMP, zlib, CUDA) is in Libs.private: only a static link asks for it.
SMV_VERSION = $(shell sed -n 's/^\#define SMV_VERSION_STRING "\(.*\)"/\1/p' include/smv.h)
SMV_VERSION_MAJOR = $(shell sed -n 's/^\#define SMV_VERSION_MAJOR \([0-9]*\)/\1/p' include/smv.h)
LIBDIR = $(PREFIX)/lib
# What a static link of libsmv.a needs after it; what libsmvlab.a's own
# code (lab/cuda: the CUDA runtime) needs.
SMV_STATIC_LIBS = -fopenmp $(LDLIBS)
SMV_LAB_LIBS = $(if $(filter 1,$(CUDA)),$(CUDA_LIBS)) -lm
# "a b c" -> "a;b;c" (a CMake list).
cmake_list = $(subst $(eval) ,;,$(strip $(1)))
INSTALL_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(SMV_VERSION)|g' \
  -e 's|@VERSION_MAJOR@|$(SMV_VERSION_MAJOR)|g' -e 's|@SONAME@|$(SONAME)|g' \
  -e 's|@LIBS_PRIVATE@|$(SMV_STATIC_LIBS)|g' -e 's|@LAB_LIBS@|$(strip $(SMV_LAB_LIBS))|g' \
  -e 's|@CMAKE_STATIC_LIBS@|$(call cmake_list,$(SMV_STATIC_LIBS))|g' \
  -e 's|@CMAKE_LAB_LIBS@|$(call cmake_list,$(SMV_LAB_LIBS))|g' \
  -e 's|@CMAKE_DIST_LIBS@|$(call cmake_list,$(SMV_DIST_LIBS))|g' \
  -e 's|@CMAKE_MPI_CFLAGS@|$(call cmake_list,$(MPI_CFLAGS))|g'

# Every file install writes (relative to PREFIX), for uninstall.
INSTALLED_FILES = include/smv.h include/smv_lab.h include/smv_solve.h \
  lib/libsmv.a lib/libsmvlab.a lib/libsmv.so.$(SMV_VERSION) lib/$(SONAME) lib/libsmv.so \
  bin/smv lib/pkgconfig/smv.pc lib/pkgconfig/smv-lab.pc \
  lib/cmake/smv/smvConfig.cmake lib/cmake/smv/smvConfigVersion.cmake

.PHONY: uninstall
install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/cmake/smv
	install -m 644 include/smv.h include/smv_lab.h include/smv_solve.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libsmv.a $(DESTDIR)$(LIBDIR)/libsmv.a
	install -m 644 $(BUILD)/libsmvlab.a $(DESTDIR)$(LIBDIR)/libsmvlab.a
	install -m 755 $(BUILD)/libsmv.so $(DESTDIR)$(LIBDIR)/libsmv.so.$(SMV_VERSION)
	ln -sf libsmv.so.$(SMV_VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsmv.so
	install -m 755 $(BUILD)/smv $(DESTDIR)$(PREFIX)/bin/smv
	if [ -d $(BUILD)/micro ]; then install -d $(DESTDIR)$(PREFIX)/libexec/smv/micro && \
	  install -m 755 $(BUILD)/micro/* $(DESTDIR)$(PREFIX)/libexec/smv/micro/; fi
	$(INSTALL_SUBST) smv.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/smv.pc
	$(INSTALL_SUBST) smv-lab.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/smv-lab.pc
	$(INSTALL_SUBST) cmake/smvConfig.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/smv/smvConfig.cmake
	$(INSTALL_SUBST) cmake/smvConfigVersion.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/smv/smvConfigVersion.cmake

# Removes what install wrote (and the folders it made, when empty).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED_FILES))
	rm -rf $(DESTDIR)$(PREFIX)/libexec/smv
	-rmdir $(DESTDIR)$(LIBDIR)/cmake/smv $(DESTDIR)$(LIBDIR)/cmake \
	  $(DESTDIR)$(LIBDIR)/pkgconfig 2>/dev/null || true
