ARCH := ppc405
